"""A caller that stops early closes every generator under it at once, innermost first.

A provider stream left suspended until garbage collection keeps generating
(and billing); these tests hold a reference to the model's generator, so
only an explicit close can run its ``finally``.
"""

from collections.abc import AsyncIterator

from steadyflow import (
    InMemoryRunner,
    InMemorySessionService,
    LlmAgent,
    RunConfig,
    StreamingMode,
)
from steadyflow.models import BaseLlm, FallbackLlm, LlmRequest, LlmResponse
from steadyflow.sessions import InvocationRecord
from steadyflow.testing import ScriptedLlm, call
from steadyflow.types import Content, Part


class EndlessLlm(BaseLlm):
    """Streams chunks until closed; logs ``"model closed"`` when its generator is closed."""

    def __init__(self, log: list[str]) -> None:
        super().__init__(model="endless")
        self.log = log
        self.generators: list[AsyncIterator[LlmResponse]] = []  # kept: no GC rescue

    def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        generator = self._chunks()
        self.generators.append(generator)
        return generator

    async def _chunks(self) -> AsyncIterator[LlmResponse]:
        try:
            while True:
                yield LlmResponse(
                    content=Content(role="model", parts=[Part(text="more ")]), partial=True
                )
        finally:
            self.log.append("model closed")


class LoggingSessions(InMemorySessionService):
    """Logs ``"trace stored"`` when the runner stores an invocation's record with its trace."""

    def __init__(self, log: list[str]) -> None:
        super().__init__()
        self.log = log

    async def update_invocation(self, record: InvocationRecord) -> None:
        if record.trace is not None:
            self.log.append("trace stored")
        await super().update_invocation(record)


async def _stop_after_first_partial(agent: LlmAgent, log: list[str]) -> None:
    runner = InMemoryRunner(agent)
    runner.session_service = LoggingSessions(log)
    session = await runner.create_session(user_id="u")
    events = runner.run_async(
        user_id="u",
        session_id=session.id,
        new_message="go",
        run_config=RunConfig(streaming_mode=StreamingMode.SSE),
    )
    async for event in events:
        if event.partial:
            break
    await events.aclose()  # type: ignore[attr-defined]


async def test_closing_the_run_closes_the_model_stream_before_the_trace_is_stored():
    log: list[str] = []
    await _stop_after_first_partial(LlmAgent(name="a", model=EndlessLlm(log)), log)
    assert log == ["model closed", "trace stored"]


async def test_closing_the_run_closes_the_model_stream_under_model_callbacks():
    log: list[str] = []
    agent = LlmAgent(
        name="a",
        model=EndlessLlm(log),
        before_model_callback=lambda **_: None,
        after_model_callback=lambda **_: None,
    )
    await _stop_after_first_partial(agent, log)
    assert log == ["model closed", "trace stored"]


async def test_closing_the_run_closes_the_stream_of_a_fallback_chain():
    log: list[str] = []
    model = FallbackLlm([EndlessLlm(log), EndlessLlm(log)])
    await _stop_after_first_partial(LlmAgent(name="a", model=model), log)
    assert log == ["model closed", "trace stored"]


async def test_closing_the_run_closes_the_stream_of_an_agent_transferred_to():
    log: list[str] = []
    helper = LlmAgent(name="helper", model=EndlessLlm(log))
    root = LlmAgent(
        name="root",
        model=ScriptedLlm([call("transfer_to_agent", {"agent_name": "helper"})]),
        sub_agents=[helper],
    )
    await _stop_after_first_partial(root, log)
    assert log == ["model closed", "trace stored"]
