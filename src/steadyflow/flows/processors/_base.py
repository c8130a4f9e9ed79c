"""The processor interfaces: steps that shape each request and each response."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from ...context import InvocationContext
from ...models.llm_request import LlmRequest
from ...models.llm_response import LlmResponse

if TYPE_CHECKING:
    from .._agent import FlowAgent

__all__ = ["RequestProcessor", "ResponseProcessor"]


class RequestProcessor(ABC):
    """Transforms the request being built for one step; returns the updated request.

    A flow's ``request_processors`` is a plain list: inspect it, insert your
    own processor, or replace one. ``agent`` is the agent whose step it is.
    """

    @abstractmethod
    async def process(
        self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest
    ) -> LlmRequest:
        """Return the request with this processor's contribution."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class ResponseProcessor(ABC):
    """Transforms each model response before it becomes an event."""

    @abstractmethod
    async def process(
        self, agent: FlowAgent, ctx: InvocationContext, response: LlmResponse
    ) -> LlmResponse:
        """Return the (possibly replaced) response."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
