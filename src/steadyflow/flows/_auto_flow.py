"""``AutoFlow``: ``SingleFlow`` plus handing the invocation to another agent.

The model gets a ``transfer_to_agent`` tool and a list of the agents it may
transfer to (its sub-agents, its parent and its peers, as the agents allow);
the transferred-to agent continues the same invocation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..tools.base_tool import BaseTool
from ..tools.transfer_to_agent import TRANSFER_TOOL_NAME, transfer_to_agent_tool
from ._base_flow import BaseLlmFlow
from ._single_flow import default_request_processors
from .processors._agent_transfer import AgentTransferProcessor
from .processors._tools import ToolsProcessor

if TYPE_CHECKING:
    from ._agent import FlowAgent

__all__ = ["AutoFlow"]


class AutoFlow(BaseLlmFlow):
    """A flow whose model may transfer the conversation to another agent."""

    def __init__(self) -> None:
        processors = default_request_processors()
        tools_at = next(i for i, p in enumerate(processors) if isinstance(p, ToolsProcessor))
        processors.insert(tools_at, AgentTransferProcessor())
        super().__init__(processors)

    def tools_for(self, agent: FlowAgent) -> Mapping[str, BaseTool]:
        """The agent's tools, plus ``transfer_to_agent`` when anyone is reachable."""
        tools = agent.tools_by_name  # BaseLlmFlow's, without the call (on every step)
        if not agent.transfer_targets():
            return tools
        return {**tools, TRANSFER_TOOL_NAME: transfer_to_agent_tool()}
