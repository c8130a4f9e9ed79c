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
   (the steps of a turn share one generator: a step, a tool batch or a text
   answer gets none of its own, since each layer costs on every event).

Partial (streamed) events are yielded for display; the runner stores only
complete ones, and function calls are acted on only from complete events.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import nullcontext
from typing import TYPE_CHECKING

from .._aio import aclose
from ..context import AgentNode, CallbackContext, InvocationContext, tree_path
from ..errors import AgentNotFoundError, AgentTransferError
from ..events import Event
from ..models.llm_request import LlmRequest
from ..models.llm_response import LlmResponse
from ..tools.base_tool import BaseTool
from ..types import FunctionCall
from ._call_ids import assign_call_ids, prepare_calls
from ._call_llm import call_llm
from ._functions import execute_function_calls
from ._response_to_event import response_to_event
from ._span import AgentSpan
from .processors._base import RequestProcessor, ResponseProcessor

if TYPE_CHECKING:
    from ._agent import FlowAgent

__all__ = ["BaseLlmFlow"]


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

    def run_one_step(self, agent: FlowAgent, ctx: InvocationContext) -> AsyncIterator[Event]:
        """One logical model call and the tool calls it asked for (one trace step)."""
        return self.run_async(agent, ctx, until_done=False)

    async def run_async(
        self, agent: FlowAgent, ctx: InvocationContext, *, until_done: bool = True
    ) -> AsyncGenerator[Event, None]:
        """Run ``agent``'s steps until its turn is over, inside its ``invoke_agent`` span.

        The steps of a turn share this one generator (a generator per step
        cost ~8k instructions). ``until_done=False`` (``run_one_step``): one
        step, and no span.
        """
        # The same for every step of the turn; none for a root (most agents).
        path = None if agent.parent_agent is None else tree_path(agent)
        with AgentSpan(agent.name, ctx) if until_done else nullcontext(ctx) as ctx:
            while True:
                last: Event | None = None
                handed_over = False
                step = ctx.trace.start_step(agent.name, path)
                responses: AsyncIterator[LlmResponse] | None = None
                try:
                    request = await self.preprocess(agent, ctx)
                    callback_context = CallbackContext(ctx, step=step.number)
                    given_ids: list[tuple[str, str]] = []  # a streamed call keeps its id
                    responses = call_llm(agent, ctx, request, callback_context, step)
                    async for response in responses:
                        for processor in self.response_processors:
                            response = await processor.process(agent, ctx, response)
                        completed = (
                            _partial_event(agent, ctx, response, given_ids)
                            if response.partial
                            else self.postprocess(agent, ctx, response, callback_context, given_ids)
                        )
                        if completed is None:
                            continue
                        last, calls = completed
                        yield last
                        if last.partial or ctx.ended.value:  # the flag without its property
                            continue
                        target_name = last.actions.transfer_to_agent  # set by a model callback
                        if calls:
                            answered = await execute_function_calls(
                                agent, ctx, calls, self.tools_for(agent), step
                            )
                            if answered is None:
                                continue
                            last = answered
                            yield answered
                            if answered.actions.end_invocation:
                                ctx.end_invocation = True
                            target_name = answered.actions.transfer_to_agent
                        if not target_name:
                            continue
                        follow_ups = self._transfer(agent, ctx, target_name)
                        handed_over = True
                        try:
                            async for last in follow_ups:
                                yield last
                        finally:
                            await aclose(follow_ups)
                    responses = None  # read to its end: nothing left to close
                finally:
                    if responses is not None:
                        await aclose(responses)
                    ctx.trace.end_step(step)
                if (  # the agent's turn is over after this step
                    not until_done
                    or last is None
                    or handed_over
                    or ctx.ended.value
                    or last.partial
                    or last.actions.escalate
                    or last.is_final_response()
                ):
                    return

    async def preprocess(self, agent: FlowAgent, ctx: InvocationContext) -> LlmRequest:
        """Build this step's request with the request processors (``apply``, else ``process``)."""
        request = LlmRequest()
        for processor in self.request_processors:
            built = processor.apply(agent, ctx, request)
            request = built if built is not None else await processor.process(agent, ctx, request)
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
            prepare_calls(event, calls, self.tools_for(agent), given_ids)
        if event.actions.end_invocation:
            ctx.end_invocation = True
        return event, calls

    def _transfer(
        self, agent: FlowAgent, ctx: InvocationContext, target_name: str
    ) -> AsyncIterator[Event]:
        """Hand the invocation to ``target_name`` (checked against the tree's rules)."""
        return transfer_target(agent, target_name).run_async(ctx)


def _partial_event(
    agent: FlowAgent, ctx: InvocationContext, response: LlmResponse, given: list[tuple[str, str]]
) -> tuple[Event, list[FunctionCall]] | None:
    """A streamed chunk's event, and no calls to run (calls run from complete events only)."""
    partial = response_to_event(agent, ctx, response, None)
    if partial is None:
        return None
    assign_call_ids(partial.get_function_calls(), given)
    return partial, []


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
