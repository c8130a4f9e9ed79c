"""Runner: user message once, storage before yield, sync twin, live runs."""

import asyncio

import pytest

from steadyflow import (
    Content,
    InMemoryRunner,
    LiveRequestQueue,
    LlmAgent,
    RunConfig,
    Runner,
    SessionNotFoundError,
    StaleSessionError,
    StreamingMode,
)
from steadyflow.models import BaseLlmConnection, LlmRequest, LlmResponse
from steadyflow.testing import ScriptedLlm, call


async def test_unknown_session_is_a_clear_error():
    runner = InMemoryRunner(LlmAgent(name="a", model=ScriptedLlm([])))
    with pytest.raises(SessionNotFoundError, match="create it first"):
        async for _ in runner.run_async(user_id="u", session_id="nope", new_message="hi"):
            pass


async def test_user_message_is_appended_exactly_once():
    runner = InMemoryRunner(LlmAgent(name="a", model=ScriptedLlm(["hello"])))
    session = await runner.create_session(user_id="u")
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="hi")
    ]
    stored = await runner.session_service.get_session(
        app_name=runner.app_name, user_id="u", session_id=session.id
    )
    assert stored is not None
    assert [e.author for e in stored.events] == ["user", "a"]  # the record is kept apart
    assert stored.events[0].invocation_id == events[0].invocation_id


async def test_each_event_is_stored_before_the_caller_receives_it():
    def t() -> str:
        """A tool."""
        return "ok"

    runner = InMemoryRunner(LlmAgent(name="a", model=ScriptedLlm([call("t"), "done"]), tools=[t]))
    session = await runner.create_session(user_id="u")
    async for event in runner.run_async(user_id="u", session_id=session.id, new_message="go"):
        stored = await runner.session_service.get_session(
            app_name=runner.app_name, user_id="u", session_id=session.id
        )
        assert stored is not None and stored.events[-1].id == event.id


def test_run_is_the_synchronous_twin():
    runner = InMemoryRunner(LlmAgent(name="a", model=ScriptedLlm(["sync hello"])))
    session = asyncio.run(runner.create_session(user_id="u"))
    texts = [e.text for e in runner.run(user_id="u", session_id=session.id, new_message="hi")]
    assert texts == ["sync hello"]


async def test_run_inside_an_event_loop_says_to_use_run_async():
    runner = InMemoryRunner(LlmAgent(name="a", model=ScriptedLlm([])))
    with pytest.raises(RuntimeError, match="run_async"):
        next(runner.run(user_id="u", session_id="s", new_message="hi"))


def test_session_service_url_with_an_unknown_scheme_is_rejected_clearly():
    with pytest.raises(ValueError, match="unknown scheme 'ftp'"):
        Runner(app_name="x", agent=LlmAgent(name="a"), session_service="ftp://x")


async def test_session_service_url_opens_a_sqlite_store(tmp_path):
    db = tmp_path / "sessions.db"
    agent = LlmAgent(name="a", model=ScriptedLlm(["stored"]))
    runner = Runner(app_name="x", agent=agent, session_service=f"sqlite:///{db}")
    session = await runner.create_session(user_id="u")
    texts = [
        e.text async for e in runner.run_async(user_id="u", session_id=session.id, new_message="hi")
    ]
    await runner.close()
    assert texts == ["stored"]
    reopened = Runner(app_name="x", agent=agent, session_service=f"sqlite:///{db}")
    stored = await reopened.session_service.get_session(
        app_name="x", user_id="u", session_id=session.id
    )
    await reopened.close()
    assert stored is not None
    assert [e.text for e in stored.events if e.content is not None] == ["hi", "stored"]


async def test_bidi_mode_through_run_async_points_to_run_live():
    runner = InMemoryRunner(LlmAgent(name="a", model=ScriptedLlm([])))
    session = await runner.create_session(user_id="u")
    with pytest.raises(ValueError, match="run_live"):
        async for _ in runner.run_async(
            user_id="u",
            session_id=session.id,
            new_message="hi",
            run_config=RunConfig(streaming_mode=StreamingMode.BIDI),
        ):
            pass


class EchoConnection(BaseLlmConnection):
    """Answers every user turn with its text, upper-cased."""

    def __init__(self) -> None:
        self.sent: list[Content] = []
        self._out: asyncio.Queue[LlmResponse | None] = asyncio.Queue()

    async def send_content(self, content: Content) -> None:
        self.sent.append(content)
        self._out.put_nowait(LlmResponse.from_text(content.text.upper(), turn_complete=True))

    async def send_realtime(self, data: bytes, mime_type: str) -> None:
        raise AssertionError("not used")

    async def receive(self):
        while (item := await self._out.get()) is not None:
            yield item

    async def close(self) -> None:
        self._out.put_nowait(None)


class LiveModel(ScriptedLlm):
    def __init__(self) -> None:
        super().__init__([])
        self.connection = EchoConnection()
        self.live_requests: list[LlmRequest] = []

    def connect(self, request: LlmRequest) -> BaseLlmConnection:
        self.live_requests.append(request)
        return self.connection


async def test_run_live_streams_answers_and_counts_one_call():
    model = LiveModel()
    runner = InMemoryRunner(LlmAgent(name="a", model=model, instruction="Echo."))
    session = await runner.create_session(user_id="u")
    queue = LiveRequestQueue()
    queue.send_content(Content.from_text("hello"))
    queue.send_content(Content.from_text("again"))
    queue.close()

    events = [
        e
        async for e in runner.run_live(
            user_id="u",
            session_id=session.id,
            live_request_queue=queue,
            run_config=RunConfig(streaming_mode=StreamingMode.BIDI, max_llm_calls=1),
        )
    ]
    assert [e.text for e in events] == ["HELLO", "AGAIN"]
    assert "Echo." in (model.live_requests[0].config.system_instruction or "")


def test_run_twice_against_postgresql_leaves_no_connection_behind(postgres_url):
    runner = Runner(
        app_name="x",
        agent=LlmAgent(name="a", model=ScriptedLlm(["one", "two"])),
        session_service=postgres_url,
    )

    async def create() -> str:
        session = await runner.create_session(user_id="u")
        await runner.close()  # connections belong to this asyncio.run's loop
        return session.id

    session_id = asyncio.run(create())
    first = [e.text for e in runner.run(user_id="u", session_id=session_id, new_message="1")]
    second = [e.text for e in runner.run(user_id="u", session_id=session_id, new_message="2")]
    assert first == ["one"] and second == ["two"]


async def test_a_turn_overtaken_by_another_writer_fails_with_stale_session_error():
    def pause() -> str:
        """A tool."""
        return "ok"

    agent = LlmAgent(
        name="a", model=ScriptedLlm([call("pause"), "other turn", "never"]), tools=[pause]
    )
    runner = InMemoryRunner(agent)
    session = await runner.create_session(user_id="u")
    slow = runner.run_async(user_id="u", session_id=session.id, new_message="first")
    first_event = await anext(slow)  # the function call, stored
    assert first_event.get_function_calls()
    others = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="2")
    ]
    assert [e.text for e in others] == ["other turn"]

    with pytest.raises(StaleSessionError, match=session.id):
        await anext(slow)  # its function response can no longer be appended
    stored = await runner.session_service.get_session(
        app_name=runner.app_name, user_id="u", session_id=session.id
    )
    assert stored is not None
    responses = [e for e in stored.events if e.get_function_responses()]
    assert responses == []  # nothing of the overtaken append was stored
