"""Agent-transfer request processor: tells the model whom it may hand over to.

Used by ``AutoFlow``; the matching ``transfer_to_agent`` tool is added by the
flow's ``tools_for``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...context import InvocationContext
from ...models.llm_request import LlmRequest
from ...tools.transfer_to_agent import TRANSFER_TOOL_NAME
from ._base import RequestProcessor

if TYPE_CHECKING:
    from .._agent import FlowAgent

__all__ = ["AgentTransferProcessor"]


class AgentTransferProcessor(RequestProcessor):
    """Lists the transfer targets and how to use ``transfer_to_agent``."""

    async def process(
        self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest
    ) -> LlmRequest:
        """Add the transfer instructions when there is anyone to transfer to."""
        return AgentTransferProcessor.apply(self, agent, ctx, request)

    def apply(self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest) -> LlmRequest:
        """``process``'s work (it never waits)."""
        targets = agent.transfer_targets()
        if not targets:
            return request
        lines = [
            "You have a list of other agents to transfer to:",
            *(f"- {t.name}: {t.description}" for t in targets),
            "If you are the best to answer the question according to your description, "
            "you can answer it.",
            f"If another agent is better for answering the question according to its "
            f"description, call `{TRANSFER_TOOL_NAME}` to transfer the question to that "
            "agent. When transferring, do not generate any text other than the function call.",
        ]
        if agent.parent_agent is not None and agent.can_transfer_to_parent():
            lines.append(
                f"If neither you nor the other agents are best for the question, transfer to "
                f"your parent agent {agent.parent_agent.name}."
            )
        request.append_instructions(["\n".join(lines)])
        return request
