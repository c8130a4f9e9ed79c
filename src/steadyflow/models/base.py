"""``BaseLlm``: the one interface between the flow and a model provider.

An adapter converts ``LlmRequest`` to its provider's wire format, streams or
returns ``LlmResponse`` objects, and classifies its own errors. It never
retries: the flow's retry policy is the only layer that does, so every
attempt is counted against the invocation's call budget.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from typing import Any

from ..errors import DEFAULT_RETRYABLE_STATUS_CODES, ModelConnectionError, ModelTimeoutError
from ..types import Content
from .llm_request import LlmRequest
from .llm_response import LlmResponse

__all__ = [
    "BaseLlm",
    "BaseLlmConnection",
    "GenerateOne",
    "classify_link",
    "parse_retry_after",
]

logger = logging.getLogger("steadyflow.retry")

_STATUS_ATTRIBUTES = ("status_code", "code", "status")

GenerateOne = Callable[["BaseLlm", LlmRequest], AsyncIterator[LlmResponse]]
"""One model's part of a call: ``generate_one(llm, request)`` yields its responses."""


class BaseLlmConnection(ABC):
    """A live, bidirectional model session (``StreamingMode.BIDI``)."""

    @abstractmethod
    async def send_content(self, content: Content) -> None:
        """Send a user turn (text or function responses)."""

    @abstractmethod
    async def send_realtime(self, data: bytes, mime_type: str) -> None:
        """Send a chunk of realtime input (audio, video frames)."""

    @abstractmethod
    def receive(self) -> AsyncIterator[LlmResponse]:
        """Responses as the model produces them."""

    @abstractmethod
    async def close(self) -> None:
        """End the live session."""


class BaseLlm(ABC):
    """A model the flow can call.

    Subclasses implement ``generate_content_async`` and may override
    ``is_exception_retryable``, ``retry_after`` and ``connect``.

    Attributes:
        model: the model name sent to the provider.
        provider: short provider name used in logs, traces and budget keys.
        timeout: seconds one attempt may take, from the request to the last
            response; the retry loop cuts an attempt past it with
            ``ModelTimeoutError``. None (the default) = no bound of its own.
    """

    provider: str = "custom"
    timeout: float | None = None

    def __init__(self, model: str) -> None:
        self.model = model

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r})"

    @abstractmethod
    def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """Call the model.

        With ``stream=False`` yield exactly one complete response. With
        ``stream=True`` yield partial responses as text arrives, then one
        complete aggregate response.
        """

    def call_models(
        self,
        request: LlmRequest,
        generate_one: GenerateOne,
        retryable_status_codes: Collection[int] = DEFAULT_RETRYABLE_STATUS_CODES,
    ) -> AsyncIterator[LlmResponse]:
        """Run ``generate_one`` on the model(s) that serve ``request``, in their order.

        A plain model serves every call itself: ``generate_one(self, request)``.
        A model that stands for several (``FallbackLlm``) overrides this to
        walk them. The retry loop passes its whole per-model loop as
        ``generate_one``; ``retryable_status_codes`` says which errors are
        transient when moving between models.
        """
        return generate_one(self, request)

    def check_configuration(self) -> None:
        """Raise ``ConfigurationError`` when this model cannot be called as configured.

        ``steadyflow run`` and ``serve`` call it when they load an agent, so a
        missing API key is reported at start, naming the variable to set,
        rather than at the first model call (counted as an attempt, after a
        session was created). It makes no request. The default checks nothing.
        """
        return None

    def connect(self, request: LlmRequest) -> BaseLlmConnection:
        """Open a live session; models without live support raise."""
        raise NotImplementedError(f"{type(self).__name__} does not support live connections")

    def is_exception_retryable(
        self, error: BaseException, retryable_status_codes: Collection[int]
    ) -> bool:
        """Whether ``error`` (one link of a cause chain) is transient.

        The default accepts connection errors, timeouts, and any error whose
        ``status_code``/``code``/``status`` attribute is in the given set.
        """
        if isinstance(
            error, ModelConnectionError | ModelTimeoutError | ConnectionError | TimeoutError
        ):
            return True
        status = status_of(error)
        return status is not None and status in retryable_status_codes

    def retry_after(self, error: BaseException) -> float | None:
        """The provider's own wait hint for ``error``, in seconds, if it gave one.

        The default reads an explicit ``retry_after`` attribute, then the
        ``retry-after-ms`` and ``retry-after`` headers (seconds or an HTTP
        date) of the error or of its ``response``.
        """
        explicit = getattr(error, "retry_after", None)
        if isinstance(explicit, int | float) and not isinstance(explicit, bool):
            return float(explicit)
        headers = getattr(error, "headers", None)
        if headers is None:
            headers = getattr(getattr(error, "response", None), "headers", None)
        if headers is None:
            return None
        try:
            return parse_retry_after(headers)
        except (AttributeError, TypeError):
            return None


def classify_link(llm: BaseLlm, link: BaseException, codes: Collection[int]) -> bool:
    """``llm.is_exception_retryable(link, codes)``; a classifier that raises says no (logged)."""
    try:
        return bool(llm.is_exception_retryable(link, codes))
    except Exception:
        logger.exception(
            "%r.is_exception_retryable raised on %s; treating it as not retryable",
            llm,
            type(link).__qualname__,
        )
        return False


def status_of(error: BaseException) -> int | None:
    """The HTTP-like status an error carries, if any."""
    for name in _STATUS_ATTRIBUTES:
        value = getattr(error, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def parse_retry_after(headers: Mapping[str, Any], now: float | None = None) -> float | None:
    """Seconds to wait according to ``retry-after-ms`` or ``retry-after`` headers.

    ``retry-after`` may be seconds or an HTTP date. Header names are matched
    case-insensitively; an unparseable value is treated as absent.
    """
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis) / 1000.0
            if value >= 0:
                return value
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    import email.utils  # only HTTP dates need it, and it imports ~10 modules

    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)
