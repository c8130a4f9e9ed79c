"""A processor subclass that overrides ``process`` is awaited, not skipped by ``apply``."""

from steadyflow import LlmAgent
from steadyflow.context import InvocationContext
from steadyflow.flows._agent import FlowAgent
from steadyflow.flows.processors import BasicProcessor, ContentsProcessor, RequestProcessor
from steadyflow.models import LlmRequest
from steadyflow.testing import ScriptedLlm, run_turn
from steadyflow.types import Content


class _RenamedModel(BasicProcessor):
    async def process(
        self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest
    ) -> LlmRequest:
        request = await super().process(agent, ctx, request)
        request.model = "overridden"
        return request


class _Greeting(RequestProcessor):
    async def process(
        self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest
    ) -> LlmRequest:
        request.contents = [Content.from_text("from the processor", role="user")]
        return request


async def test_a_subclass_overriding_process_only_has_its_override_run():
    model = ScriptedLlm(["ok"])
    agent = LlmAgent(name="a", model=model)
    agent.flow.request_processors[0] = _RenamedModel()
    await run_turn(agent, "q")
    assert model.requests[0].model == "overridden"


async def test_contents_put_by_an_earlier_processor_are_replaced_by_the_session():
    model = ScriptedLlm(["ok"])
    agent = LlmAgent(name="a", model=model)
    processors = agent.flow.request_processors
    at = next(i for i, p in enumerate(processors) if isinstance(p, ContentsProcessor))
    processors.insert(at, _Greeting())
    await run_turn(agent, "q")
    assert [c.text for c in model.requests[0].contents] == ["q"]
