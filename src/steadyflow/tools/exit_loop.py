"""``exit_loop``: the tool an agent inside a ``LoopAgent`` calls to end the loop."""

from __future__ import annotations

from ..context import ToolContext

__all__ = ["exit_loop"]


def exit_loop(tool_context: ToolContext) -> None:
    """Call this when the task is done and no more iterations are needed.

    Args:
        tool_context: injected by the runtime.
    """
    # Escalating ends the calling agent's turn and the loop around it; the
    # turn ends on the tool's response (no summary call). It returns nothing,
    # as ADK's does: the stored response is {"result": None}.
    tool_context.actions.escalate = True
    tool_context.actions.skip_summarization = True
