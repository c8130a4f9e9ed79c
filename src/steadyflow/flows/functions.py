"""Tool dispatch: from a model's function calls to one function-response event.

Calls without an id get a client-side id before the call event is stored.
Several calls in one response run concurrently; their responses come back
in call order in a single event. A tool that raises, an unknown tool name,
or arguments that fail validation become an error response the model can
read, so the turn goes on.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel

from .. import telemetry
from ..context import InvocationContext, ToolContext
from ..events import Event, EventActions
from ..tools.base_tool import BaseTool
from ..tools.function_tool import ToolArgumentsError
from ..tracing import StepTrace, ToolCallScope
from ..types import Content, FunctionCall, Part
from .callbacks import run_callbacks

if TYPE_CHECKING:
    from ..agents.llm_agent import LlmAgent

__all__ = ["execute_function_calls", "prepare_calls"]

logger = logging.getLogger("steadyflow.tools")

CLIENT_CALL_ID_PREFIX = "sf-"


def prepare_calls(event: Event, tools: dict[str, BaseTool]) -> list[FunctionCall]:
    """Ready a complete event's calls before it is stored (in place); returns them.

    Calls without an id get a client-side one; calls of long-running tools
    are listed in ``long_running_tool_ids`` (left None when there are none).
    """
    calls = event.get_function_calls()
    long_running: list[str] = []
    for call in calls:
        if not call.id:
            call.id = CLIENT_CALL_ID_PREFIX + os.urandom(8).hex()  # 16 hex digits
        tool = tools.get(call.name)
        if tool is not None and tool.is_long_running:
            long_running.append(call.id)
    if long_running:
        event.long_running_tool_ids = long_running
    return calls


def _as_response_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return cast(dict[str, Any], value)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return {"result": value}


async def _run_tool(
    tool: BaseTool, call: FunctionCall, tool_context: ToolContext, scope: ToolCallScope
) -> Any:
    try:
        return await tool.run_async(args=call.args, tool_context=tool_context)
    except ToolArgumentsError as error:
        scope.failed(error)
        return {"error": str(error)}
    except Exception as error:  # the model reads the failure and decides what to do
        scope.failed(error)
        logger.warning("tool %r raised %s: %s", tool.name, type(error).__name__, error)
        return {"error": f"tool {tool.name!r} failed: {type(error).__name__}: {error}"}


async def _call_one(
    ctx: InvocationContext, call: FunctionCall, tools: dict[str, BaseTool], step: StepTrace | None
) -> tuple[Part | None, EventActions | None]:
    """One call inside its ``execute_tool`` span and trace record."""
    with ctx.trace.tool_call(step, call.name, call.id, ctx.agent_span) as scope:
        scope.content(telemetry.ATTR_TOOL_CALL_ARGUMENTS, call.args)
        part, actions = await _dispatch(ctx, call, tools, scope)
        if part is not None and part.function_response is not None:
            scope.content(telemetry.ATTR_TOOL_CALL_RESULT, part.function_response.response)
        return part, actions


async def _dispatch(
    ctx: InvocationContext, call: FunctionCall, tools: dict[str, BaseTool], scope: ToolCallScope
) -> tuple[Part | None, EventActions | None]:
    agent = cast("LlmAgent", ctx.agent)
    tool_context = ToolContext(ctx, function_call_id=call.id)
    tool = tools.get(call.name)
    if tool is None:
        known = ", ".join(tools) or "(none)"
        result: Any = {"error": f"unknown tool {call.name!r}; available tools: {known}"}
        scope.failed("UnknownTool")
    else:
        result = await run_callbacks(
            agent.before_tool_callbacks, tool=tool, args=call.args, tool_context=tool_context
        )
        if result is not None:
            scope.short_circuit("before_tool_callback")
        else:
            result = await _run_tool(tool, call, tool_context, scope)
        if result is None and tool.is_long_running:
            return None, tool_context.pending_actions()
        replaced = await run_callbacks(
            agent.after_tool_callbacks,
            tool=tool,
            args=call.args,
            tool_context=tool_context,
            tool_response=_as_response_dict(result),
        )
        if replaced is not None:
            result = replaced
    part = Part.from_function_response(call.name, _as_response_dict(result), id=call.id)
    return part, tool_context.pending_actions()


def _merge(actions: list[EventActions | None]) -> EventActions | None:
    """The calls' actions as one; None when no call used its actions."""
    used = [item for item in actions if item is not None]
    if not used:
        return None
    merged = EventActions()
    for item in used:
        merged.state_delta.update(item.state_delta)
        merged.transfer_to_agent = item.transfer_to_agent or merged.transfer_to_agent
        merged.escalate = merged.escalate or item.escalate
        merged.end_invocation = merged.end_invocation or item.end_invocation
        merged.skip_summarization = merged.skip_summarization or item.skip_summarization
    return merged


async def execute_function_calls(
    ctx: InvocationContext,
    calls: list[FunctionCall],
    tools: dict[str, BaseTool],
    step: StepTrace | None = None,
) -> Event | None:
    """Run ``calls`` (one event's, prepared); the function-response event, or None if none answered.

    Each call is recorded in ``step`` of the invocation's trace (when given).
    """
    if len(calls) == 1:
        results = [await _call_one(ctx, calls[0], tools, step)]
    else:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(_call_one(ctx, call, tools, step)) for call in calls]
        results = [task.result() for task in tasks]
    parts = [part for part, _ in results if part is not None]
    if not parts:
        return None
    event = Event(
        invocation_id=ctx.invocation_id,
        author=ctx.agent.name,
        content=Content(role="user", parts=parts),
    )
    # Set after: few fields passed keep the fields-set small (and NO_ACTIONS shared).
    actions = _merge([actions for _, actions in results])
    if actions is not None:
        event.actions = actions
    if ctx.branch is not None:
        event.branch = ctx.branch
    return event
