"""What a failed tool call answers: the on-tool-error callbacks first, then the error.

Shared by a tool that raised and by a call of a name the agent has no tool
for. Both go to the runner's plugins' ``on_tool_error_callback`` and then
the agent's own; the first dict returned becomes the call's response. A
call of an unknown name reaches them as ADK's does: ``tool`` is a stand-in
of that name (``UnknownTool``) and ``error`` a ``ToolNotFoundError``, so a
callback can answer for a tool the model made up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..context import ToolContext
from ..errors import ToolNotFoundError
from ..tools.base_tool import BaseTool
from ..types import FunctionDeclaration
from ._callbacks import chained, run_callbacks

if TYPE_CHECKING:
    from ._agent import FlowAgent

__all__ = ["UnknownTool", "on_tool_error", "unknown_tool_answer"]


class UnknownTool(BaseTool):
    """Stands in for a tool the model called but the agent does not have."""

    def __init__(self, name: str) -> None:
        # Not BaseTool.__init__: a made-up name need not be an identifier.
        self.name = name
        self.description = "tool not found"

    def declaration(self) -> FunctionDeclaration:
        """A declaration of the name alone (never sent to the model)."""
        return FunctionDeclaration(name=self.name, description=self.description)

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Never runs: there is no such tool."""
        raise ToolNotFoundError(self.name, [])


async def on_tool_error(
    agent: FlowAgent,
    tool: BaseTool,
    args: dict[str, Any],
    tool_context: ToolContext,
    error: Exception,
) -> Any:
    """The first answer of the on-tool-error callbacks (plugins' first), or None."""
    return await run_callbacks(
        chained(
            tool_context.invocation_context, "on_tool_error_callback", agent.on_tool_error_callbacks
        ),
        tool=tool,
        args=args,
        tool_context=tool_context,
        error=error,
    )


async def unknown_tool_answer(
    agent: FlowAgent, name: str, args: dict[str, Any], tool_context: ToolContext, known: list[str]
) -> Any:
    """The response to a call of ``name``, a tool the agent does not have."""
    error = ToolNotFoundError(name, known)
    handled = await on_tool_error(agent, UnknownTool(name), args, tool_context, error)
    return error.response if handled is None else handled
