"""Tools request processor: each tool contributes its declaration."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...context import InvocationContext
from ...models.llm_request import LlmRequest
from .base import RequestProcessor

if TYPE_CHECKING:
    from .._agent import FlowAgent

__all__ = ["ToolsProcessor"]


class ToolsProcessor(RequestProcessor):
    """Declares the step's tools (the agent's, plus any the flow adds)."""

    async def process(
        self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest
    ) -> LlmRequest:
        """Append one function declaration per tool."""
        tools = agent.flow.tools_for(agent)
        if tools:
            request.append_tools([tool.declaration() for tool in tools.values()])
        return request
