"""``ServerLimits``: what the operator allows, and each request's ``RunConfig`` within it.

A request may choose its call budget, streaming mode and retry attempts;
the operator sets the ceilings once at start-up. Values outside them are
refused with a 422 naming the field, never silently clamped: a client that
asked for 500 calls should learn it gets at most 50.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .._response_cap import DEFAULT_MAX_RESPONSE_BYTES
from ..retry._config import RetryConfig
from ..run_config import RunConfig, StreamingMode
from ._errors import ApiError, FieldError
from ._schemas import RunOptions

__all__ = ["ServerLimits"]


def _positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"ServerLimits.{name} must be an int >= 1, got {value!r}")
    return value


@dataclass(frozen=True, kw_only=True)
class ServerLimits:
    """Ceilings and defaults the operator sets when the server starts.

    Attributes:
        max_llm_calls: the largest ``run_config.max_llm_calls`` a request may
            ask for. A request cannot turn the budget off.
        default_max_llm_calls: the budget of a request that names none.
        max_retry_attempts: the largest ``run_config.retry_max_attempts``.
        retry_config: the retry policy turns run under; a request may change
            only its ``max_attempts`` (the default is this config's).
        max_body_bytes: larger request bodies are refused with 413.
        sse_ping_interval: seconds of silence after which ``/run_sse`` sends
            a keep-alive comment (proxies drop idle streams).
        max_response_bytes: the largest model response a turn may receive
            (``Runner(max_response_bytes=)``; past it the turn fails with 502).
    """

    max_llm_calls: int = 100
    default_max_llm_calls: int = 25
    max_retry_attempts: int = 5
    retry_config: RetryConfig = field(default_factory=RetryConfig.disabled)
    max_body_bytes: int = 1_048_576
    sse_ping_interval: float = 15.0
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES

    def __post_init__(self) -> None:
        for name in ("max_llm_calls", "default_max_llm_calls", "max_retry_attempts"):
            _positive(name, getattr(self, name))
        _positive("max_body_bytes", self.max_body_bytes)
        _positive("max_response_bytes", self.max_response_bytes)
        if self.default_max_llm_calls > self.max_llm_calls:
            raise ValueError(
                f"ServerLimits.default_max_llm_calls ({self.default_max_llm_calls}) must be "
                f"<= ServerLimits.max_llm_calls ({self.max_llm_calls})"
            )
        if not isinstance(self.retry_config, RetryConfig):
            raise ValueError(f"ServerLimits.retry_config must be a RetryConfig, got {self!r}")
        if self.retry_config.max_attempts > self.max_retry_attempts:
            raise ValueError(
                f"ServerLimits.retry_config.max_attempts ({self.retry_config.max_attempts}) "
                f"must be <= ServerLimits.max_retry_attempts ({self.max_retry_attempts})"
            )
        interval = self.sse_ping_interval
        if isinstance(interval, bool) or not isinstance(interval, int | float) or interval <= 0:
            raise ValueError(
                f"ServerLimits.sse_ping_interval must be > 0 seconds, got {interval!r}"
            )

    def run_config(self, options: RunOptions | None, default_mode: StreamingMode) -> RunConfig:
        """The ``RunConfig`` for one request.

        Raises:
            ApiError: 422 naming each field outside the operator's limits.
        """
        options = options or RunOptions()
        errors: list[FieldError] = []
        calls = options.max_llm_calls
        if calls is None:
            calls = self.default_max_llm_calls
        elif not 1 <= calls <= self.max_llm_calls:
            errors.append(_range("max_llm_calls", calls, self.max_llm_calls))
        attempts = options.retry_max_attempts
        if attempts is None:
            attempts = self.retry_config.max_attempts
        elif not 1 <= attempts <= self.max_retry_attempts:
            errors.append(_range("retry_max_attempts", attempts, self.max_retry_attempts))
        if errors:
            raise ApiError.invalid(errors)
        mode = default_mode if options.streaming_mode is None else options.streaming_mode
        retry = replace(self.retry_config, max_attempts=attempts)
        return RunConfig(
            max_llm_calls=calls,
            streaming_mode=StreamingMode(mode),
            retry_config=retry,
            on_pending_confirmation=options.on_pending_confirmation or "supersede",
        )


def _range(name: str, value: int, ceiling: int) -> FieldError:
    return FieldError(
        f"run_config.{name}",
        f"must be between 1 and {ceiling} (the server's limit), got {value}",
    )
