"""``FallbackLlm``: a list of models tried in order when the one before it is unavailable.

When a provider is down, an agent that can answer with a second provider's
model keeps serving. ``FallbackLlm([primary, secondary, ...])`` is itself a
``BaseLlm``, so it goes wherever a model goes (``LlmAgent(model=...)``, a
registry factory) and needs no change to agents or run configs.

The chain owns the one walk over its models (``call_models``): each model
gets ``generate_one`` (under the runtime, the whole single-model retry loop,
with its own budget and breaker key, every attempt charged to
``max_llm_calls``), and the call moves to the next model when that gave up on
a transient error or an open circuit, only while nothing has been yielded
yet. Each response names the model that produced it in
``custom_metadata["steadyflow.model"]`` (and ``model_version`` when the
provider left it empty), so the event records which model answered.

Called directly (``generate_content_async`` outside the runtime), the same
walk makes one attempt per model.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Collection, Sequence

from .._aio import aclose
from ..errors import (
    DEFAULT_RETRYABLE_STATUS_CODES,
    CircuitOpenError,
    InvocationLimitError,
    PacingTimeoutError,
    QuotaExhaustedError,
    error_chain,
)
from .base import BaseLlm, BaseLlmConnection, GenerateOne, classify_link
from .llm_request import LlmRequest
from .llm_response import LlmResponse
from .registry import LlmRegistry

__all__ = ["ANSWERED_BY_KEY", "FALLBACK_INDEX_KEY", "FallbackLlm", "tag_response"]

logger = logging.getLogger("steadyflow.retry")

ANSWERED_BY_KEY = "steadyflow.model"
"""``custom_metadata`` key naming the model that produced a response."""

FALLBACK_INDEX_KEY = "steadyflow.fallback_index"
"""``custom_metadata`` key: position of that model in the chain (0 = primary)."""


def tag_response(response: LlmResponse, llm: BaseLlm, index: int) -> LlmResponse:
    """``response`` marked as produced by ``llm``, the chain's ``index``-th model."""
    metadata = dict(response.custom_metadata or {})
    metadata[ANSWERED_BY_KEY] = llm.model
    metadata[FALLBACK_INDEX_KEY] = index
    update: dict[str, object] = {"custom_metadata": metadata}
    if response.model_version is None:
        update["model_version"] = llm.model
    return response.model_copy(update=update)


_UNAVAILABLE = (CircuitOpenError, QuotaExhaustedError, PacingTimeoutError)


def _falls_over(llm: BaseLlm, error: BaseException, codes: Collection[int]) -> bool:
    """Whether ``error`` from ``llm`` moves the call on: transient, or unavailable for now.

    Unavailable: an open circuit, a spent quota, a pacer that could not
    admit the call in time.

    Classified like a retry: every link of the cause/context chain is asked
    (``errors.error_chain``), and an ``InvocationLimitError`` (calls, tokens, money) anywhere
    stops the call.
    """
    links = list(error_chain(error))
    if any(isinstance(link, InvocationLimitError) for link in links):
        return False
    if any(isinstance(link, _UNAVAILABLE) for link in links):
        return True
    return any(classify_link(llm, link, codes) for link in links)


class FallbackLlm(BaseLlm):
    """Models tried in order: the first is the primary, the rest stand in for it.

    Args:
        models: model names (resolved through ``LlmRegistry`` on first use)
            or ``BaseLlm`` instances; at least one. A ``FallbackLlm`` in the
            list is flattened into it.
        model: the chain's own name; defaults to the primary's name.
    """

    provider = "fallback"
    _entries: list[str | BaseLlm]

    def __init__(self, models: Sequence[str | BaseLlm], *, model: str | None = None) -> None:
        if isinstance(models, str | BaseLlm) or not isinstance(models, Sequence):
            raise ValueError(
                f"FallbackLlm takes a list of models (names or BaseLlm), got {models!r}"
            )
        entries: list[str | BaseLlm] = []
        for item in models:
            if isinstance(item, FallbackLlm):
                entries.extend(item._entries)
            elif isinstance(item, BaseLlm) or (isinstance(item, str) and item):
                entries.append(item)
            else:
                raise ValueError(
                    f"FallbackLlm models must be model names or BaseLlm instances, got {item!r}"
                )
        if not entries:
            raise ValueError("FallbackLlm needs at least one model")
        first = entries[0]
        super().__init__(model or (first if isinstance(first, str) else first.model))
        self._entries = entries
        self._resolved: list[BaseLlm] | None = None

    def __repr__(self) -> str:
        names = [e if isinstance(e, str) else repr(e) for e in self._entries]
        return f"FallbackLlm([{', '.join(names)}])"

    @property
    def models(self) -> list[BaseLlm]:
        """The chain's models, in order, names resolved through ``LlmRegistry``."""
        if self._resolved is None:
            self._resolved = [
                LlmRegistry.resolve(e) if isinstance(e, str) else e for e in self._entries
            ]
        return list(self._resolved)

    def check_configuration(self) -> None:
        """Check every model of the chain (a fallback without a key fails when it is needed)."""
        for llm in self.models:
            llm.check_configuration()

    def request_for(self, llm: BaseLlm, request: LlmRequest) -> LlmRequest:
        """``request`` addressed to ``llm`` (the flow names the chain's primary)."""
        if request.model == llm.model:
            return request
        return request.model_copy(update={"model": llm.model})

    async def call_models(
        self,
        request: LlmRequest,
        generate_one: GenerateOne,
        retryable_status_codes: Collection[int] = DEFAULT_RETRYABLE_STATUS_CODES,
    ) -> AsyncIterator[LlmResponse]:
        """The responses of the first model that answers, each tagged with who answered.

        Raises:
            Exception: the last model's error, or the first error that does
                not move the call on (not transient, the call budget, or
                output already yielded), unchanged.
        """
        models = self.models
        for index, llm in enumerate(models):
            emitted = False
            responses = generate_one(llm, self.request_for(llm, request))
            try:
                async for response in responses:
                    emitted = True
                    yield tag_response(response, llm, index)
                return
            except Exception as error:
                last = index == len(models) - 1
                if emitted or last or not _falls_over(llm, error, retryable_status_codes):
                    raise
                _log_fallback(llm, models[index + 1], error)
            finally:
                await aclose(responses)

    def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """One attempt per model, moving on only before anything was yielded."""

        def one_attempt(llm: BaseLlm, model_request: LlmRequest) -> AsyncIterator[LlmResponse]:
            return llm.generate_content_async(model_request, stream=stream)

        return self.call_models(request, one_attempt)

    def connect(self, request: LlmRequest) -> BaseLlmConnection:
        """Live sessions use the primary only: a live stream cannot change models midway."""
        primary = self.models[0]
        return primary.connect(self.request_for(primary, request))

    def is_exception_retryable(
        self, error: BaseException, retryable_status_codes: Collection[int]
    ) -> bool:
        """The primary's classification (the retry loop asks each model itself)."""
        return self.models[0].is_exception_retryable(error, retryable_status_codes)

    def retry_after(self, error: BaseException) -> float | None:
        """The primary's reading of the wait hint."""
        return self.models[0].retry_after(error)


def _log_fallback(llm: BaseLlm, successor: BaseLlm, error: BaseException) -> None:
    logger.warning(
        "model %s unavailable (%s), falling back to %s",
        llm.model,
        type(error).__qualname__,
        successor.model,
        extra={
            "model": llm.model,
            "fallback_model": successor.model,
            "error_type": type(error).__qualname__,
        },
    )
