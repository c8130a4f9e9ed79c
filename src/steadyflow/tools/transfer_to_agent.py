"""The ``transfer_to_agent`` tool AutoFlow gives agents that may hand over."""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

from ..context import ToolContext
from .function_tool import FunctionTool

__all__ = ["TRANSFER_TOOL_NAME", "transfer_to_agent_tool"]

TRANSFER_TOOL_NAME = "transfer_to_agent"

logger = logging.getLogger("steadyflow.tools")


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


class _TransferTool(FunctionTool):
    """``transfer_to_agent``, which ignores arguments it does not declare.

    Models prompted the way ADK prompts them often add arguments of their own
    (``transfer_reason``, ``reason``). Any other tool refuses undeclared
    arguments; refusing these would fail a transfer over a courtesy, so they
    are dropped (logged at DEBUG) and the transfer goes ahead.
    """

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Transfer with the declared arguments only."""
        extra = [key for key in args if key not in self._arg_names]
        if extra:
            logger.debug("transfer_to_agent: ignoring undeclared arguments %s", extra)
            args = {key: value for key, value in args.items() if key in self._arg_names}
        return await super().run_async(args=args, tool_context=tool_context)


@cache
def transfer_to_agent_tool() -> FunctionTool:
    """The shared tool, built on first use (building it means building pydantic schemas)."""
    return _TransferTool(transfer_to_agent)
