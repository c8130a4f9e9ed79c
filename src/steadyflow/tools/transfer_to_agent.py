"""The ``transfer_to_agent`` tool AutoFlow gives agents that may hand over."""

from __future__ import annotations

from functools import cache
from typing import Any

from ..context import ToolContext
from .function_tool import FunctionTool

__all__ = ["TRANSFER_TOOL_NAME", "transfer_to_agent_tool"]

TRANSFER_TOOL_NAME = "transfer_to_agent"


def transfer_to_agent(agent_name: str, tool_context: ToolContext) -> dict[str, Any]:
    """Transfer the conversation to another agent better suited to answer.

    Args:
        agent_name: the name of the agent to transfer to.
        tool_context: injected by the runtime.
    """
    allowed = [a.name for a in tool_context.invocation_context.agent.transfer_targets()]
    if agent_name not in allowed:
        return {
            "error": f"cannot transfer to {agent_name!r}; agents you can transfer to: "
            + (", ".join(allowed) or "(none)")
        }
    tool_context.actions.transfer_to_agent = agent_name
    return {"transferred_to": agent_name}


@cache
def transfer_to_agent_tool() -> FunctionTool:
    """The shared tool, built on first use (building it means building pydantic schemas)."""
    return FunctionTool(transfer_to_agent)
