"""Basic request processor: the model name and the agent's generation config."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...context import InvocationContext
from ...models.llm_request import LlmRequest
from ._base import RequestProcessor

if TYPE_CHECKING:
    from .._agent import FlowAgent

__all__ = ["BasicProcessor"]


class BasicProcessor(RequestProcessor):
    """Sets ``request.model`` and copies the agent's ``generate_content_config``."""

    async def process(
        self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest
    ) -> LlmRequest:
        """Set the model name and a private copy of the generation config."""
        return BasicProcessor.apply(self, agent, ctx, request)

    def apply(self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest) -> LlmRequest:
        """``process``'s work (it never waits)."""
        request.model = agent.canonical_model.model
        if agent.generate_content_config is not None:
            request.config = agent.generate_content_config.model_copy(deep=True)
        return request
