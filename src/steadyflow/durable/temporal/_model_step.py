"""One step's model call inside an activity: the flow's own pieces, no tools.

The request is built by the agent's request processors from the stored
session, the call goes through ``call_llm`` (callbacks, budget, the retry
loop), and each complete response becomes an event the way the in-process
loop makes it (response processors, ``postprocess``: call ids, long-running
ids, end of invocation). Partial responses are not relayed: the workflow
sees complete events only, and stores each once (the README's "Temporal"
page says what a client sees).
"""

from __future__ import annotations

from typing import Any

from ..._aio import aclose
from ...context import CallbackContext, InvocationContext
from ...events import Event
from ...flows._call_llm import call_llm
from ...types import FunctionCall
from ._payloads import CallSpec, StepResult

__all__ = ["model_step"]


async def model_step(agent: Any, ctx: InvocationContext, number: int) -> StepResult:
    """Run step ``number``'s model call for ``agent`` (a flow agent); its complete events."""
    flow = agent.flow
    step = ctx.trace.start_step(agent.name)
    step.number = number
    events: list[Event] = []
    calls: list[FunctionCall] = []
    request = await flow.preprocess(agent, ctx)
    callback_context = CallbackContext(ctx, step=number)
    given_ids: list[tuple[str, str]] = []
    responses = call_llm(agent, ctx, request, callback_context, step)
    try:
        async for response in responses:
            for processor in flow.response_processors:
                response = await processor.process(agent, ctx, response)
            if response.partial:
                continue
            completed = flow.postprocess(agent, ctx, response, callback_context, given_ids)
            if completed is not None:
                events.append(completed[0])
                calls = completed[1]
    finally:
        await aclose(responses)
        ctx.trace.end_step(step)
    trace = ctx.trace.finish(
        invocation_id=ctx.invocation_id,
        agent_name=agent.name,
        error=None,
        budget_used=ctx.budget.count,
        budget_limit=ctx.budget.limit,
    )
    tools = {**flow.tools_for(agent), **ctx.toolset_tools.get(agent.name, {})}
    specs = [
        CallSpec(call=c, idempotent=bool((t := tools.get(c.name)) and t.is_idempotent))
        for c in calls
    ]
    return StepResult(
        events=events,
        calls=specs,
        llm_calls=ctx.budget.count,
        end_invocation=ctx.end_invocation,
        trace=trace.to_dict()["steps"][0],
    )
