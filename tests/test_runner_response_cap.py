"""A model response over ``max_response_bytes`` fails the turn, closes its stream."""

from collections.abc import AsyncIterator

import pytest

from steadyflow import (
    InMemoryRunner,
    LlmAgent,
    ModelResponseTooLargeError,
    RunConfig,
    Runner,
    StreamingMode,
)
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse
from steadyflow.sessions import InMemorySessionService
from steadyflow.testing import ScriptedLlm
from steadyflow.types import Content, Part

CHUNK = "x" * 1024


class RunawayLlm(BaseLlm):
    """Streams 1 KiB chunks forever; counts the chunks sent and whether it was closed."""

    def __init__(self) -> None:
        super().__init__(model="runaway")
        self.sent = 0
        self.closed = False

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        try:
            while True:
                self.sent += 1
                yield LlmResponse(
                    content=Content(role="model", parts=[Part(text=CHUNK)]), partial=True
                )
        finally:
            self.closed = True


def runner_for(model: BaseLlm, limit: int | None) -> Runner:
    agent = LlmAgent(name="a", model=model)
    return Runner(
        app_name="app",
        agent=agent,
        session_service=InMemorySessionService(),
        max_response_bytes=limit,
    )


async def run(runner: Runner, stream: bool) -> list[str]:
    session = await runner.create_session(user_id="u")
    mode = StreamingMode.SSE if stream else StreamingMode.NONE
    seen: list[str] = []
    with pytest.raises(ModelResponseTooLargeError) as refused:
        async for event in runner.run_async(
            user_id="u",
            session_id=session.id,
            new_message="go",
            run_config=RunConfig(streaming_mode=mode),
        ):
            seen.append(event.text)
    assert refused.value.limit == 10 * 1024
    stored = await runner.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    assert stored is not None
    assert [e.author for e in stored.events] == ["user"]  # nothing of the answer
    return seen


async def test_a_runaway_stream_is_cut_at_the_bound_and_closed():
    model = RunawayLlm()
    seen = await run(runner_for(model, 10 * 1024), stream=True)
    assert model.closed
    assert model.sent == 11 and len(seen) == 10  # the 11th chunk crossed 10 KiB


async def test_a_complete_answer_over_the_bound_is_refused_whole():
    seen = await run(runner_for(ScriptedLlm(["y" * 20_000]), 10 * 1024), stream=False)
    assert seen == []


async def test_the_default_bound_is_8_mib_and_none_turns_it_off():
    assert InMemoryRunner(LlmAgent(name="a", model=ScriptedLlm([]))).max_response_bytes == (
        8 * 1024 * 1024
    )
    runner = runner_for(ScriptedLlm(["y" * 20_000]), None)
    session = await runner.create_session(user_id="u")
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="q")
    ]
    assert len(events[-1].text) == 20_000


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_a_bad_bound_is_a_value_error_naming_it(bad):
    with pytest.raises(ValueError, match="max_response_bytes"):
        runner_for(ScriptedLlm([]), bad)
