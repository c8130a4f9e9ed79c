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

    The flow asks ``apply`` first and awaits ``process`` only when it returns
    None: a coroutine per processor and step cost more than most processors'
    work (the built-in ones do their common case in ``apply``). A subclass
    that overrides ``process`` alone is always awaited.
    """

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        if "process" in cls.__dict__ and "apply" not in cls.__dict__:
            # An inherited ``apply`` would do the parent's work instead of the override.
            cls.apply = RequestProcessor.apply  # type: ignore[method-assign]

    @abstractmethod
    async def process(
        self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest
    ) -> LlmRequest:
        """Return the request with this processor's contribution."""

    def apply(
        self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest
    ) -> LlmRequest | None:
        """The request with this processor's contribution made at once, or None.

        None (the default) means the work needs waiting: the flow then awaits
        ``process``.
        """
        return None

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
