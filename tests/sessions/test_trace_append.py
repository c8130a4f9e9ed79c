"""A finished turn keeps its stored trace when another writer appended first."""

from steadyflow import LlmAgent, Runner
from steadyflow.events import Event
from steadyflow.sessions import BaseSessionService
from steadyflow.sessions.base import Session
from steadyflow.testing import ScriptedLlm
from steadyflow.tracing import TRACE_APPEND_ATTEMPTS, is_trace_event, traces_in


async def _stored(runner: Runner, session_id: str) -> Session:
    stored = await runner.session_service.get_session(
        app_name=runner.app_name, user_id="u", session_id=session_id
    )
    assert stored is not None
    return stored


async def test_the_trace_is_stored_after_another_turn_wrote_to_the_session(service):
    runner = Runner(
        app_name="app",
        agent=LlmAgent(name="a", model=ScriptedLlm(["one", "two"])),
        session_service=service,
    )
    session = await runner.create_session(user_id="u")
    first = runner.run_async(user_id="u", session_id=session.id, new_message="1")
    answer = await anext(first)  # stored; its trace is appended when the turn ends
    others = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="2")
    ]
    assert [e.text for e in others] == ["two"]

    assert [e async for e in first] == []  # the turn ends without an error
    traces = traces_in((await _stored(runner, session.id)).events)
    assert sorted(t.invocation_id for t in traces) == sorted(
        [answer.invocation_id, others[0].invocation_id]
    )
    assert all(t.status == "ok" for t in traces)


class AlwaysOvertaken(BaseSessionService):
    """Wraps a store; before each trace append, another writer appends an event first."""

    def __init__(self, inner: BaseSessionService) -> None:
        self.inner = inner
        self.trace_appends = 0

    async def create_session(self, **kwargs):  # type: ignore[no-untyped-def]
        return await self.inner.create_session(**kwargs)

    async def get_session(self, **kwargs):  # type: ignore[no-untyped-def]
        return await self.inner.get_session(**kwargs)

    async def list_sessions(self, **kwargs):  # type: ignore[no-untyped-def]
        return await self.inner.list_sessions(**kwargs)

    async def delete_session(self, **kwargs):  # type: ignore[no-untyped-def]
        await self.inner.delete_session(**kwargs)

    async def append_event(self, session: Session, event: Event) -> Event:
        if is_trace_event(event):
            self.trace_appends += 1
            other = await self.inner.get_session(
                app_name=session.app_name, user_id=session.user_id, session_id=session.id
            )
            assert other is not None
            await self.inner.append_event(other, Event(author="other", invocation_id="x"))
        return await self.inner.append_event(session, event)


async def test_a_trace_always_overtaken_is_given_up_after_a_bounded_number_of_tries(
    service, caplog
):
    store = AlwaysOvertaken(service)
    runner = Runner(
        app_name="app",
        agent=LlmAgent(name="a", model=ScriptedLlm(["one"])),
        session_service=store,
    )
    session = await runner.create_session(user_id="u")
    assert [
        e.text async for e in runner.run_async(user_id="u", session_id=session.id, new_message="1")
    ] == ["one"]
    assert store.trace_appends == TRACE_APPEND_ATTEMPTS
    assert traces_in((await _stored(runner, session.id)).events) == []
    assert "could not store the trace" in caplog.text
