"""Tool dispatch: from a model's function calls to one function-response event.

Calls without an id get a client-side id before the call event is stored
(``_call_ids``). Several calls in one response run concurrently; their responses come back
in call order in a single event. A state write by one call is visible to
its siblings at once, and the event's delta holds every call's writes,
merged in call order. Tools and tool callbacks get a deep copy of the
arguments: the stored call is the model's record and never changes.

A tool that raises, an unknown tool name, or arguments that fail
validation go to the on-tool-error callbacks (``_tool_errors``); unless one
answers, they become an error response the model can read, so the turn
goes on.

A call that needs a person's confirmation (``BaseTool.needs_confirmation``,
asked before anything of the call runs, or ``tool_context.
request_confirmation`` from a before-tool callback or the tool) pauses:
the batch's event is then a pause event of confirmation requests
(``_confirmation``) instead of the response event, and the invocation
ends there, waiting. The batch's other calls run now, as ADK runs them;
their results wait in the journal and reach the model together with the
paused calls' in one response event once every request is answered, so the
conversation reads as if nothing had paused; their state writes are stored
with the pause event (and repeated by that response event). A confirmed call runs from the
start with ``tool_context.tool_confirmation`` set; a declined one does not
run and the model reads a declined response.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from .. import telemetry
from .._confirmation import ToolConfirmation, declined_response, default_hint, request_call
from .._json import copy_object
from ..context import InvocationContext, ToolContext
from ..errors import ToolResponseError
from ..events import Event, EventActions
from ..tools.base_tool import BaseTool
from ..trace_record import StepTrace, ToolCallScope
from ..types import Content, FunctionCall, Part
from ._callbacks import chained, run_callbacks
from ._tool_errors import on_tool_error, unknown_tool_answer

if TYPE_CHECKING:
    from ._agent import FlowAgent

__all__ = ["execute_function_calls", "execute_one_call", "response_event"]

logger = logging.getLogger("steadyflow.tools")


def _as_response_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):  # a tool's JSON object (no cast call: once per tool call)
        return value  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return {"result": value}


async def _run_tool(
    batch: _Batch,
    tool: BaseTool,
    args: dict[str, Any],
    tool_context: ToolContext,
    scope: ToolCallScope,
) -> Any:
    """The tool's result; a failure goes to the on-tool-error callbacks, else to the model."""
    try:
        return await tool.run_async(args=args, tool_context=tool_context)
    except Exception as error:  # the model reads the failure and decides what to do
        return await _failed(batch, tool, args, tool_context, scope, error, "failed")


async def _failed(
    batch: _Batch,
    tool: BaseTool,
    args: dict[str, Any],
    tool_context: ToolContext,
    scope: ToolCallScope,
    error: Exception,
    what: str,
) -> Any:
    """What the model reads for ``error`` (traced): an on-tool-error callback's, or the error."""
    scope.failed(error)
    handled = await on_tool_error(batch.agent, tool, args, tool_context, error)
    if handled is not None:
        return handled
    if isinstance(error, ToolResponseError):
        return error.response
    logger.warning("tool %r %s: %s: %s", tool.name, what, type(error).__name__, error)
    return {"error": f"tool {tool.name!r} {what}: {type(error).__name__}: {error}"}


# Neither is frozen: a frozen dataclass's __init__ goes through object.__setattr__
# per field (about 8x the cost), and both are made for every tool call.
@dataclass(slots=True)
class _Batch:
    """One event's calls: whose they are, where they run, what they share."""

    agent: FlowAgent
    ctx: InvocationContext
    tools: Mapping[str, BaseTool]
    step: StepTrace | None
    state: dict[str, Any] | None  # the calls' state writes, when they run side by side
    size: int = 1


@dataclass(slots=True)
class _Answer:
    """One call's outcome: its response part, its actions, or the request that paused it."""

    part: Part | None = None  # None: a long-running call with no response yet, or paused
    actions: EventActions | None = None
    request: FunctionCall | None = None


async def _call_one(
    batch: _Batch, call: FunctionCall, confirmation: ToolConfirmation | None = None
) -> _Answer:
    """One call inside its ``execute_tool`` span and trace record."""
    ctx, journal = batch.ctx, batch.ctx.journal
    tool = batch.tools.get(call.name)
    if journal is not None:  # a resumed invocation: this call may have its outcome already
        known = journal.known(call, idempotent=tool is not None and tool.is_idempotent)
        if known is not None:
            answer = Part.from_function_response(call.name, known.response, id=call.id)
            delta = known.state_delta
            return _Answer(answer, EventActions(state_delta=delta) if delta else None)
        confirmation = journal.confirmation(call)
    server = tool.server_name if tool is not None else None
    with ctx.trace.tool_call(batch.step, call.name, call.id, ctx.agent_span, server) as scope:
        scope.content(telemetry.ATTR_TOOL_CALL_ARGUMENTS, call.args)
        tool_context = ToolContext(
            ctx, function_call_id=call.id, batch_state=batch.state, tool_confirmation=confirmation
        )
        outcome = await _dispatch(batch, call, tool, tool_context, scope)
        part, actions = outcome.part, outcome.actions
        if part is not None and part.function_response is not None:
            scope.content(telemetry.ATTR_TOOL_CALL_RESULT, part.function_response.response)
            if journal is not None and batch.size > 1:  # a single call's goes with its event
                delta = actions.state_delta if actions is not None else {}
                await journal.finished(
                    call, part.function_response.response or {}, delta, batch_size=batch.size
                )
        return outcome


def _paused(call: FunctionCall, tool_context: ToolContext, scope: ToolCallScope) -> _Answer:
    """The call waits for a person: its request, and nothing it did (dropped)."""
    hint, payload = tool_context.confirmation_request or ("", None)
    scope.short_circuit("confirmation")
    return _Answer(request=request_call(call, hint, payload))


async def _gate(
    batch: _Batch,
    tool: BaseTool,
    call: FunctionCall,
    args: dict[str, Any],
    tool_context: ToolContext,
    scope: ToolCallScope,
) -> _Answer | None:
    """Before the call runs: declined (not run), paused for confirmation, or None (run it).

    A confirmation rule that raises is the call's error (the tool does not run).
    """
    confirmation = tool_context.tool_confirmation
    if confirmation is not None:
        if confirmation.confirmed:
            return None
        scope.short_circuit("declined")
        response = declined_response(call, confirmation)
        return _Answer(Part.from_function_response(call.name, response, id=call.id))
    try:
        needed = await tool.needs_confirmation(args=args, tool_context=tool_context)
    except Exception as error:
        what = "did not run: its confirmation rule failed"
        result = await _failed(batch, tool, args, tool_context, scope, error, what)
        return _Answer(
            Part.from_function_response(call.name, _as_response_dict(result), id=call.id)
        )
    if needed:
        tool_context.request_confirmation(hint=default_hint(call))
        return _Answer()  # paused (the request is made by the caller)
    return None


async def _dispatch(
    batch: _Batch,
    call: FunctionCall,
    tool: BaseTool | None,
    tool_context: ToolContext,
    scope: ToolCallScope,
) -> _Answer:
    """``call`` of ``tool`` (None: no tool of its name): gate, callbacks, the tool itself."""
    agent = batch.agent
    if tool is None:
        scope.failed("UnknownTool")
        args = copy_object(call.args)
        result: Any = await unknown_tool_answer(
            agent, call.name, args, tool_context, [*batch.tools]
        )
    elif tool_context.tool_confirmation is None and (  # a confirmed call was counted when asked
        refusal := batch.ctx.usage.admit_tool_call(call.name)
    ):
        result = {"error": refusal}  # a tool-call limit: nothing of the call runs
        scope.failed("ToolCallLimit")
    else:
        # The call stays what the model asked for (it is the stored record):
        # callbacks and the tool share one private copy they may change.
        args = copy_object(call.args)
        if tool.may_need_confirmation or tool_context.tool_confirmation is not None:
            gated = await _gate(batch, tool, call, args, tool_context, scope)
            if gated is not None:
                if gated.part is not None:  # declined, or its confirmation rule failed
                    return gated
                return _paused(call, tool_context, scope)
        # Callback lists are checked before calling: most agents have none,
        # and most runners no plugins (nothing to chain then).
        plugged = bool(batch.ctx.plugins.plugins)
        before = agent.before_tool_callbacks
        if plugged:
            before = chained(batch.ctx, "before_tool_callback", before)
        result = None
        if before:
            result = await run_callbacks(before, tool=tool, args=args, tool_context=tool_context)
        if result is not None:
            scope.short_circuit("before_tool_callback")
        elif not before or tool_context.confirmation_request is None:  # only they can ask yet
            result = await _run_tool(batch, tool, args, tool_context, scope)
        if tool_context.confirmation_request is not None:
            return _paused(call, tool_context, scope)
        if result is None and tool.is_long_running:
            return _Answer(None, tool_context.pending_actions())
        after = agent.after_tool_callbacks
        if plugged:
            after = chained(batch.ctx, "after_tool_callback", after)
        if after:
            replaced = await run_callbacks(
                after,
                tool=tool,
                args=args,
                tool_context=tool_context,
                tool_response=_as_response_dict(result),
            )
            if replaced is not None:
                result = replaced
    part = Part.from_function_response(call.name, _as_response_dict(result), id=call.id)
    return _Answer(part, tool_context.pending_actions())


def _merge(used: list[EventActions]) -> EventActions:
    """The actions of the calls that used theirs (at least one), as one."""
    merged = EventActions()
    for item in used:
        merged.state_delta.update(item.state_delta)
        merged.transfer_to_agent = item.transfer_to_agent or merged.transfer_to_agent
        merged.escalate = merged.escalate or item.escalate
        merged.end_invocation = merged.end_invocation or item.end_invocation
        merged.skip_summarization = merged.skip_summarization or item.skip_summarization
    return merged


async def execute_function_calls(
    agent: FlowAgent,
    ctx: InvocationContext,
    calls: list[FunctionCall],
    tools: Mapping[str, BaseTool],
    step: StepTrace | None = None,
) -> Event | None:
    """Run ``calls`` (one event's, prepared); the function-response event, or None if none answered.

    When a call paused for a person's confirmation the event returned is the
    pause event instead (see the module docstring). Each call is recorded in
    ``step`` of the invocation's trace (when given).
    The tools ``agent``'s toolsets gave for this step are found beside ``tools``.
    """
    from_toolsets = ctx.toolset_tools.get(agent.name)
    if from_toolsets:
        tools = {**from_toolsets, **tools}
    if ctx.journal is not None:
        await ctx.journal.begin(calls)  # one durable write for the batch
    if len(calls) == 1:
        results = [await _call_one(_Batch(agent, ctx, tools, step, None), calls[0])]
    else:
        # Siblings read each other's writes at once.
        batch = _Batch(agent, ctx, tools, step, {}, len(calls))
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(_call_one(batch, call)) for call in calls]
        results = [task.result() for task in tasks]
    requests: list[FunctionCall] = []
    answered: list[tuple[Part | None, EventActions | None]] = []
    for answer in results:  # one pass, no comprehension frames
        if answer.request is not None:
            requests.append(answer.request)
        answered.append((answer.part, answer.actions))
    if requests:
        ctx.end_invocation = True  # the invocation waits for a person
        pause = _pause_event(agent, ctx, requests)
        written = [a for _, a in answered if a is not None and a.state_delta]
        if written:  # what the calls that ran wrote is stored now, not after the answer
            pause.actions = EventActions(state_delta=_merge(written).state_delta)
        return pause
    return response_event(
        answered,
        invocation_id=ctx.invocation_id,
        author=agent.name,
        branch=ctx.branch,
    )


def response_event(
    results: Sequence[tuple[Part | None, EventActions | None]],
    *,
    invocation_id: str,
    author: str,
    branch: str | None = None,
    **fields: Any,
) -> Event | None:
    """One batch's function-response event from its calls' results, in call order.

    None when no call answered (long-running calls answer later). ``fields``
    (an ``id``, a ``timestamp``) are passed to the event: a durable engine's
    workflow gives them so replaying it builds the same event.
    """
    parts: list[Part] = []
    used: list[EventActions] = []
    for part, call_actions in results:  # one pass, no comprehension frames
        if part is not None:
            parts.append(part)
        if call_actions is not None:
            used.append(call_actions)
    if not parts:
        return None
    content = Content(role="user", parts=parts)
    event = Event(invocation_id=invocation_id, author=author, content=content, **fields)
    # Set after: few fields passed keep the fields-set small.
    if used:
        event.actions = _merge(used)
    if branch is not None:
        event.branch = branch
    return event


def _pause_event(agent: FlowAgent, ctx: InvocationContext, requests: list[FunctionCall]) -> Event:
    """The batch's pause event: its confirmation requests, listed as long-running."""
    content = Content(role="model", parts=[Part(function_call=r) for r in requests])
    event = Event(invocation_id=ctx.invocation_id, author=agent.name, content=content)
    event.long_running_tool_ids = [r.id or "" for r in requests]
    if ctx.branch is not None:
        event.branch = ctx.branch
    return event


async def execute_one_call(
    agent: FlowAgent,
    ctx: InvocationContext,
    call: FunctionCall,
    tools: Mapping[str, BaseTool],
    step: StepTrace | None = None,
    confirmation: ToolConfirmation | None = None,
) -> tuple[Part | None, EventActions | None, FunctionCall | None]:
    """One call of a batch run on its own (a durable engine runs each call as its own task).

    The same dispatch as ``execute_function_calls`` (callbacks, error
    responses, the trace record in ``step``), without the journal: the
    engine's history is the journal. Siblings run elsewhere, so a call sees
    the session's state as stored, not its siblings' writes of this batch.
    ``confirmation`` is a person's answer for a call that paused before.
    Returns the response part, the actions, and the confirmation request
    when the call paused for a person.
    """
    answer = await _call_one(_Batch(agent, ctx, tools, step, None), call, confirmation)
    return answer.part, answer.actions, answer.request
