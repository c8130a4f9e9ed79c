"""Output-schema request processor: asks for JSON matching the agent's model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...context import InvocationContext
from ...models.llm_request import LlmRequest
from ._base import RequestProcessor

if TYPE_CHECKING:
    from .._agent import FlowAgent

__all__ = ["OutputSchemaProcessor"]


class OutputSchemaProcessor(RequestProcessor):
    """Sets ``response_schema`` from ``LlmAgent.output_schema`` when there is one."""

    async def process(
        self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest
    ) -> LlmRequest:
        """Attach the JSON schema (computed once per agent)."""
        return OutputSchemaProcessor.apply(self, agent, ctx, request)

    def apply(self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest) -> LlmRequest:
        """``process``'s work (it never waits)."""
        schema = agent.output_json_schema
        if schema is not None:
            request.set_output_schema(schema)
        return request
