"""``BaseLlmFlow``: the model-call orchestration loop.

``run_async`` repeats one *step* until an event is a final response, an
action ends the invocation (or transfers it), or a step yields no events.
A step is one logical model call:

1. preprocess: the request processors build an ``LlmRequest`` from the
   session, in order;
2. call: callbacks, the call budget, the model under the retry policy
   (``call_llm``);
3. postprocess: response processors and conversion to an event; then
   its function calls run (``execute_function_calls``) and their responses
   become one event, after which the next step sends them back to the model
   (neither a text answer nor a tool batch needs a generator of its own).

Partial (streamed) events are yielded for display; the runner stores only
complete ones, and function calls are acted on only from complete events.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._aio import aclose
from ..context import AgentNode, CallbackContext, InvocationContext
from ..errors import AgentNotFoundError, AgentTransferError
from ..events import Event
from ..models.llm_request import LlmRequest
from ..models.llm_response import LlmResponse
from ..tools.base_tool import BaseTool
from ..types import FunctionCall
from ._call_llm import call_llm
from ._functions import assign_call_ids, execute_function_calls, prepare_calls
from ._response_to_event import response_to_event
from ._span import AgentSpan
from .processors._base import RequestProcessor, ResponseProcessor

if TYPE_CHECKING:
    from ._agent import FlowAgent

__all__ = ["BaseLlmFlow"]


@dataclass
class _StepOutcome:
    """What the loop needs to know after a step, besides its events."""

    last_event: Event | None = None
    handed_over: bool = False


class BaseLlmFlow:
    """The loop shared by ``SingleFlow`` and ``AutoFlow``.

    Attributes:
        request_processors: applied in order to build each request.
        response_processors: applied in order to each model response.
    """

    def __init__(
        self,
        request_processors: list[RequestProcessor],
        response_processors: list[ResponseProcessor] | None = None,
    ) -> None:
        self.request_processors = request_processors
        self.response_processors = response_processors or []

    def tools_for(self, agent: FlowAgent) -> Mapping[str, BaseTool]:
        """The tools the model may call in ``agent``'s steps, by name."""
        return agent.tools_by_name

    async def run_async(self, agent: FlowAgent, ctx: InvocationContext) -> AsyncIterator[Event]:
        """Run ``agent``'s steps until its turn is over, inside its ``invoke_agent`` span."""
        with AgentSpan(agent.name, ctx) as ctx:
            while True:
                outcome = _StepOutcome()
                events = self._run_step(agent, ctx, outcome)
                try:
                    async for event in events:
                        yield event
                finally:
                    await events.aclose()  # our own generator: no ``aclose`` helper needed
                last = outcome.last_event
                if (
                    last is None
                    or outcome.handed_over
                    or ctx.end_invocation
                    or last.partial
                    or last.actions.escalate
                    or last.is_final_response()
                ):
                    return

    def run_one_step(self, agent: FlowAgent, ctx: InvocationContext) -> AsyncIterator[Event]:
        """One logical model call and the tool calls it asked for (one trace step)."""
        return self._run_step(agent, ctx, _StepOutcome())

    async def _run_step(
        self, agent: FlowAgent, ctx: InvocationContext, outcome: _StepOutcome
    ) -> AsyncGenerator[Event, None]:
        """``run_one_step``, noting in ``outcome`` what ``run_async`` decides on."""
        step = ctx.trace.start_step(agent.name, _tree_path(agent))
        responses: AsyncIterator[LlmResponse] | None = None
        try:
            request = await self.preprocess(agent, ctx)
            callback_context = CallbackContext(ctx, step=step.number)
            given_ids: list[tuple[str, str]] = []  # a streamed call keeps its id
            responses = call_llm(agent, ctx, request, callback_context, step)
            async for response in responses:
                for processor in self.response_processors:
                    response = await processor.process(agent, ctx, response)
                if response.partial:
                    # A streamed chunk is one event for display, never acted on.
                    partial = response_to_event(agent, ctx, response, None)
                    if partial is not None:
                        assign_call_ids(partial.get_function_calls(), given_ids)
                        outcome.last_event = partial
                        yield partial
                    continue
                completed = self.postprocess(agent, ctx, response, callback_context, given_ids)
                if completed is None:
                    continue
                event, calls = completed
                outcome.last_event = event
                yield event
                if ctx.end_invocation:
                    continue
                target_name = event.actions.transfer_to_agent  # set by a model callback
                if calls:  # awaited here, not in a generator of its own: one layer less
                    answered = await execute_function_calls(
                        agent, ctx, calls, self.tools_for(agent), step
                    )
                    if answered is None:
                        continue
                    outcome.last_event = answered
                    yield answered
                    if answered.actions.end_invocation:
                        ctx.end_invocation = True
                    target_name = answered.actions.transfer_to_agent
                if not target_name:
                    continue
                follow_ups = self._transfer(agent, ctx, target_name, outcome)
                try:
                    async for follow_up in follow_ups:
                        outcome.last_event = follow_up
                        yield follow_up
                finally:
                    await aclose(follow_ups)
        finally:
            if responses is not None:
                await aclose(responses)
            ctx.trace.end_step(step)

    async def preprocess(self, agent: FlowAgent, ctx: InvocationContext) -> LlmRequest:
        """Build this step's request with the request processors."""
        request = LlmRequest()
        for processor in self.request_processors:
            request = await processor.process(agent, ctx, request)
        return request

    def postprocess(
        self,
        agent: FlowAgent,
        ctx: InvocationContext,
        response: LlmResponse,
        callback_context: CallbackContext,
        given_ids: list[tuple[str, str]] | None = None,
    ) -> tuple[Event, list[FunctionCall]] | None:
        """The event for one complete, processed response, and its function calls.

        None when the response carries nothing. The calls get ids and the
        long-running list; an action that ends the invocation ends it once
        the event is out.
        """
        event = response_to_event(agent, ctx, response, callback_context.pending_actions())
        if event is None:
            return None
        calls = event.get_function_calls()
        if calls:  # the step's tools are needed only then (most answers are text)
            calls = prepare_calls(event, self.tools_for(agent), given_ids)
        if event.actions.end_invocation:
            ctx.end_invocation = True
        return event, calls

    def _transfer(
        self, agent: FlowAgent, ctx: InvocationContext, target_name: str, outcome: _StepOutcome
    ) -> AsyncIterator[Event]:
        """Hand the invocation to ``target_name`` (checked against the tree's rules)."""
        target = transfer_target(agent, target_name)
        outcome.handed_over = True
        return target.run_async(ctx)


def _tree_path(agent: AgentNode) -> list[str] | None:
    """The names from the root down to ``agent``; None for the root itself."""
    if agent.parent_agent is None:
        return None
    path = [agent.name]
    node: AgentNode | None = agent.parent_agent
    while node is not None:
        path.append(node.name)
        node = node.parent_agent
    return path[::-1]


def transfer_target(agent: AgentNode, target_name: str) -> AgentNode:
    """The agent ``agent`` hands over to, if the tree's rules allow it.

    Whoever set ``actions.transfer_to_agent`` (the built-in tool, a user's
    tool or a callback), the same rules apply: sub-agents, and the parent and
    peers unless the agent disallows them.

    Raises:
        AgentNotFoundError: no agent of that name is in the tree.
        AgentTransferError: the agent may not transfer to that one.
    """
    targets = agent.transfer_targets()
    for target in targets:
        if target.name == target_name:
            return target
    root = agent.root_agent
    if root.find_agent(target_name) is None:
        raise AgentNotFoundError(
            f"agent {agent.name!r} cannot transfer to {target_name!r}: "
            f"no agent of that name in the tree of {root.name!r}",
            from_agent=agent.name,
            to_agent=target_name,
        )
    allowed = ", ".join(t.name for t in targets) or "(none)"
    raise AgentTransferError(
        f"agent {agent.name!r} may not transfer to {target_name!r}; it may transfer to: {allowed}",
        from_agent=agent.name,
        to_agent=target_name,
    )
