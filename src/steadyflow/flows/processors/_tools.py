"""Tools request processor: each tool contributes its declaration.

Toolsets are asked for their tools here, once per step; what they give is
kept on the invocation context (``toolset_tools``) for the step's tool
dispatch. A toolset tool whose name is already taken (by a plain tool or an
earlier toolset) or reserved by the runtime (``transfer_to_agent``,
``steadyflow_request_confirmation``) is left out with a warning: the list of
a remote server can change under us, and one clash should not end the turn.
A toolset that cannot load (``ToolsetUnavailableError``) fails the step,
unless it is ``optional``: then it is left out, with a warning in the log
and in the step's trace.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..._confirmation import REQUEST_CONFIRMATION_NAME
from ...context import InvocationContext, ReadonlyContext
from ...errors import ToolsetUnavailableError
from ...models.llm_request import LlmRequest
from ...tools.base_tool import BaseTool
from ...tools.transfer_to_agent import TRANSFER_TOOL_NAME
from ...types import FunctionDeclaration
from ._base import RequestProcessor

if TYPE_CHECKING:
    from .._agent import FlowAgent

__all__ = ["ToolsProcessor", "ask_toolsets"]

logger = logging.getLogger("steadyflow.tools")

RESERVED_TOOL_NAMES = frozenset({TRANSFER_TOOL_NAME, REQUEST_CONFIRMATION_NAME})
"""Names the runtime gives its own function calls; a toolset may not offer them."""


async def _toolset_tools(
    agent: FlowAgent, ctx: InvocationContext, taken: set[str]
) -> dict[str, BaseTool]:
    """The tools ``agent``'s toolsets give for this step, by name."""
    found: dict[str, BaseTool] = {}
    readonly = ReadonlyContext(ctx)
    for toolset in agent.toolsets:
        try:
            tools = await toolset.get_tools(readonly)
        except ToolsetUnavailableError as error:
            if not toolset.optional:
                raise
            _left_out(agent, ctx, error)
            continue
        for tool in tools:
            if tool.name in taken or tool.name in found or tool.name in RESERVED_TOOL_NAMES:
                logger.warning(
                    "agent %r: toolset %r offers a tool named %r, %s; left out",
                    agent.name,
                    toolset,
                    tool.name,
                    "a name the runtime reserves"
                    if tool.name in RESERVED_TOOL_NAMES
                    else "already taken",
                )
                continue
            found[tool.name] = tool
    return found


def _left_out(agent: FlowAgent, ctx: InvocationContext, error: ToolsetUnavailableError) -> None:
    """Warn, in the log and the step's trace, that an optional toolset could not load."""
    missing = ", ".join(error.missing_tools) or "not known"
    message = (
        f"optional toolset {error.toolset!r} left out: {error.reason} (missing tools: {missing})"
    )
    logger.warning("agent %r: %s", agent.name, message)
    ctx.trace.warn(message)


async def ask_toolsets(
    agent: FlowAgent, ctx: InvocationContext, own: Mapping[str, BaseTool]
) -> dict[str, BaseTool]:
    """Ask ``agent``'s toolsets for this step's tools and keep them for tool dispatch.

    ``own`` is the flow's tools for the agent (``tools_for``), which the
    caller has at hand; a toolset's tool may not take one of their names.
    Also used when an invocation continues with tool calls before any model
    step (a resume, a confirmation answer): their tools must be known then.
    """
    from_toolsets = await _toolset_tools(agent, ctx, set(own))
    ctx.toolset_tools[agent.name] = from_toolsets
    return from_toolsets


class ToolsProcessor(RequestProcessor):
    """Declares the step's tools (the agent's, its toolsets', plus any the flow adds)."""

    async def process(
        self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest
    ) -> LlmRequest:
        """Append one function declaration per tool."""
        built = ToolsProcessor.apply(self, agent, ctx, request)
        if built is not None:
            return built
        tools = dict(agent.flow.tools_for(agent))
        tools.update(await ask_toolsets(agent, ctx, tools))
        return _declared(request, tools) if tools else request

    def apply(
        self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest
    ) -> LlmRequest | None:
        """``process``'s work without toolsets; None when there are toolsets to ask."""
        if agent.toolsets:
            return None
        tools = agent.flow.tools_for(agent)
        return _declared(request, tools) if tools else request  # most steps: no tools


def _declared(request: LlmRequest, tools: Mapping[str, BaseTool]) -> LlmRequest:
    """``request`` with one function declaration per tool (at least one) appended."""
    # A loop: a comprehension is one more frame per step.
    declarations: list[FunctionDeclaration] = []
    for tool in tools.values():
        declarations.append(tool.declaration())
    request.append_tools(declarations)
    return request
