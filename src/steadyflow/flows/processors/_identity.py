"""Identity request processor: tells the model which agent it is."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...context import InvocationContext
from ...models.llm_request import LlmRequest
from ._base import RequestProcessor

if TYPE_CHECKING:
    from .._agent import FlowAgent

__all__ = ["IdentityProcessor"]


class IdentityProcessor(RequestProcessor):
    """Adds the agent's name and description to the system instruction."""

    async def process(
        self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest
    ) -> LlmRequest:
        """Add one identity paragraph."""
        return IdentityProcessor.apply(self, agent, ctx, request)

    def apply(self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest) -> LlmRequest:
        """``process``'s work (it never waits)."""
        text = f'You are an agent. Your internal name is "{agent.name}".'
        if agent.description:
            text += f' The description about you is "{agent.description}".'
        request.append_instructions([text])
        return request
