"""Errors of provider calls, and the default set of statuses counted as transient.

HTTP status, quota, connection, timeout, unparsable or oversized answer,
open circuit breaker, pacer deadline.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._base import SteadyflowError

DEFAULT_RETRYABLE_STATUS_CODES: frozenset[int] = frozenset({408, 429, 500, 502, 503, 504, 529})
"""Transient HTTP statuses: timeout, rate limit, server errors, Anthropic's overload (529)."""


class ModelError(SteadyflowError):
    """A provider call failed.

    Attributes:
        provider: the provider's short name ("openai", "gemini", ...), if known.
        status_code: the HTTP status, when the provider answered.
        retry_after: the provider's wait hint in seconds, when it gave one.
        headers: response headers, names lower-cased.
        body: the provider's error body (parsed JSON or text).
        usage: the ``UsageMetadata`` the provider reported before the call
            failed (a stream cut after its usage arrived), else None: a
            failed attempt that was billed counts against usage limits.
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status_code: int | None = None,
        retry_after: float | None = None,
        headers: Mapping[str, str] | None = None,
        body: Any = None,
        usage: Any = None,
    ) -> None:
        super().__init__(message)
        self.usage = usage
        self.provider = provider
        self.status_code = status_code
        self.retry_after = retry_after
        self.headers: dict[str, str] = {k.lower(): v for k, v in (headers or {}).items()}
        self.body = body


class ModelHTTPError(ModelError):
    """The provider answered with an error status."""

    status_code: int

    def __init__(
        self,
        status_code: int,
        message: str | None = None,
        *,
        provider: str | None = None,
        retry_after: float | None = None,
        headers: Mapping[str, str] | None = None,
        body: Any = None,
    ) -> None:
        text = message or f"provider returned HTTP {status_code}"
        super().__init__(
            text,
            provider=provider,
            status_code=status_code,
            retry_after=retry_after,
            headers=headers,
            body=body,
        )


class QuotaExhaustedError(ModelHTTPError):
    """A quota that resets in hours (a daily or monthly one), not a per-minute rate limit.

    Raised for a 429 whose payload says so (Gemini quota ids with ``PerDay``
    or ``PerMonth``, OpenAI's ``insufficient_quota``) or whose reset is an
    hour or more away, and by a pacer for a key it marked exhausted (then
    with no provider request). Never retried and never waited for: a
    ``FallbackLlm`` moves to its next model at once.

    Attributes:
        reset_after: seconds until the quota resets, when known.
    """

    def __init__(
        self,
        status_code: int,
        message: str | None = None,
        *,
        reset_after: float | None = None,
        provider: str | None = None,
        retry_after: float | None = None,
        headers: Mapping[str, str] | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(
            status_code,
            message,
            provider=provider,
            retry_after=retry_after,
            headers=headers,
            body=body,
        )
        self.reset_after = reset_after


class ModelConnectionError(ModelError):
    """The provider could not be reached or dropped the connection."""


class ModelTimeoutError(ModelError):
    """The provider did not answer in time."""


class ModelResponseError(ModelError):
    """The provider answered with something that could not be parsed."""


class ModelResponseTooLargeError(ModelResponseError):
    """One model response grew past the runner's ``max_response_bytes``.

    The stream was closed and nothing of the answer was stored; never retried
    (output had been produced).

    Attributes:
        size: the bytes counted when the bound was crossed.
        limit: the runner's ``max_response_bytes``.
    """

    def __init__(self, agent_name: str, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit
        super().__init__(
            f"agent {agent_name!r}: a model response of at least {size} bytes is over "
            f"max_response_bytes ({limit}); the stream was closed and nothing of it stored"
        )


class CircuitOpenError(ModelError):
    """The circuit breaker for this model is open: the call fails fast."""


class PacingTimeoutError(ModelError):
    """The pacer could let the attempt go only after the call's deadline: nothing was sent.

    Raised before the first attempt when the provider's learned rate limit
    admits it later than ``RetryConfig.total_timeout`` (or the pacer's
    ``max_wait``) allows; no provider request was made and no attempt was
    counted. A ``FallbackLlm`` moves to its next model.

    Attributes:
        key: the pacer's key (``provider:model``).
        wait: seconds the pacer would have had to wait.
        allowed: seconds the call could still wait.
    """

    def __init__(self, key: str, wait: float, allowed: float) -> None:
        provider = key.partition(":")[0] or None
        super().__init__(
            f"pacer for {key}: the rate limit admits this call in {wait:.3g}s, past its "
            f"deadline ({allowed:.3g}s left of total_timeout / max_wait); nothing was sent",
            provider=provider,
        )
        self.key = key
        self.wait = wait
        self.allowed = allowed
