"""``RetryConfig``: the user's retry settings, validated once at construction.

Delay before retry n (n = 1, 2, ...)::

    base  = min(initial_backoff * multiplier ** (n - 1), max_backoff)
    delay = min(base * (1 + U(-jitter_ratio, +jitter_ratio)), max_backoff)

When the provider sent a wait hint (Retry-After, retry-after-ms, Gemini
RetryInfo) and ``respect_retry_after`` is on, the wait is ``max(delay, hint)``;
a hint above ``max_retry_after`` means give up at once. ``total_timeout``
bounds the whole logical call, waits included.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from ..errors import DEFAULT_RETRYABLE_STATUS_CODES
from .breaker import Breaker
from .budget import RetryBudget

__all__ = ["DEFAULT_RETRYABLE_STATUS_CODES", "RetryConfig"]


def _seconds(name: str, value: float | timedelta) -> float:
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be seconds (float) or a timedelta, got {value!r}")
    return float(value)


def _non_negative(name: str, value: float) -> None:
    if math.isnan(value) or value < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number, got {value!r}")
    return float(value)


def _status_codes(value: object) -> frozenset[int]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise ValueError(
            f"retryable_status_codes must be a collection of HTTP statuses, got {value!r}"
        )
    codes = frozenset(value)
    for code in codes:
        if isinstance(code, bool) or not isinstance(code, int) or not 100 <= code <= 599:
            raise ValueError(f"retryable_status_codes must be HTTP statuses 100-599, got {code!r}")
    return codes


def _set_guards(config: RetryConfig, budget: object, breaker: object) -> None:
    if budget is not None and not isinstance(budget, RetryBudget):
        raise ValueError(f"budget must be a RetryBudget (allow/record), got {budget!r}")
    if breaker is not None and not isinstance(breaker, Breaker):
        raise ValueError(f"circuit_breaker must be a CircuitBreaker, got {breaker!r}")
    object.__setattr__(config, "budget", budget)
    object.__setattr__(config, "circuit_breaker", breaker)


@dataclass(frozen=True, kw_only=True)
class RetryConfig:
    """How a failed model call is retried. The default is one attempt (off).

    Attributes:
        max_attempts: provider attempts per logical call, the first included.
        initial_backoff: delay before the first retry, seconds.
        max_backoff: cap on any computed delay, seconds.
        multiplier: growth factor of the delay per retry.
        jitter_ratio: each delay varies uniformly by up to this fraction.
        retryable_status_codes: HTTP statuses the provider classifier retries.
        respect_retry_after: wait at least the provider's hint when it gave one.
        max_retry_after: a hint above this gives up instead of waiting.
        total_timeout: bound on the whole call with its waits; None = no bound.
        budget: a ``RetryBudget`` shared by every call that uses this config
            (``TokenBucketRetryBudget``, ``AdaptiveThrottle``,
            ``RedisRetryBudget``); asked before each retry. None = no budget.
        circuit_breaker: a ``CircuitBreaker`` (or ``RedisCircuitBreaker``)
            shared likewise; an open circuit fails the call fast with
            ``CircuitOpenError``. None = no breaker.

    Durations accept seconds (float) or ``datetime.timedelta`` and are stored
    as float seconds.
    """

    max_attempts: int = 1
    initial_backoff: float = 0.5
    max_backoff: float = 8.0
    multiplier: float = 2.0
    jitter_ratio: float = 0.2
    retryable_status_codes: frozenset[int] = DEFAULT_RETRYABLE_STATUS_CODES
    respect_retry_after: bool = True
    max_retry_after: float = 60.0
    total_timeout: float | None = None
    budget: RetryBudget | None = None
    circuit_breaker: Breaker | None = None

    def __init__(
        self,
        *,
        max_attempts: int = 1,
        initial_backoff: float | timedelta = 0.5,
        max_backoff: float | timedelta = 8.0,
        multiplier: float = 2.0,
        jitter_ratio: float = 0.2,
        retryable_status_codes: Iterable[int] = DEFAULT_RETRYABLE_STATUS_CODES,
        respect_retry_after: bool = True,
        max_retry_after: float | timedelta = 60.0,
        total_timeout: float | timedelta | None = None,
        budget: RetryBudget | None = None,
        circuit_breaker: Breaker | None = None,
    ) -> None:
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int):
            raise ValueError(f"max_attempts must be an int, got {max_attempts!r}")
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be >= 1, got {max_attempts}")
        initial = _seconds("initial_backoff", initial_backoff)
        _non_negative("initial_backoff", initial)
        if math.isinf(initial):
            raise ValueError(f"initial_backoff must be finite, got {initial!r}")
        cap = _seconds("max_backoff", max_backoff)
        _non_negative("max_backoff", cap)
        if cap < initial:
            raise ValueError(f"max_backoff ({cap}) must be >= initial_backoff ({initial})")
        multiplier = _number("multiplier", multiplier)
        if not math.isfinite(multiplier) or multiplier < 1:
            raise ValueError(f"multiplier must be finite and >= 1, got {multiplier!r}")
        jitter_ratio = _number("jitter_ratio", jitter_ratio)
        if not 0 <= jitter_ratio <= 1:
            raise ValueError(f"jitter_ratio must be within [0, 1], got {jitter_ratio!r}")
        codes = _status_codes(retryable_status_codes)
        if not isinstance(respect_retry_after, bool):
            raise ValueError(f"respect_retry_after must be a bool, got {respect_retry_after!r}")
        hint_cap = _seconds("max_retry_after", max_retry_after)
        _non_negative("max_retry_after", hint_cap)
        timeout = None if total_timeout is None else _seconds("total_timeout", total_timeout)
        if timeout is not None:
            _non_negative("total_timeout", timeout)
        set_ = object.__setattr__
        set_(self, "max_attempts", max_attempts)
        set_(self, "initial_backoff", initial)
        set_(self, "max_backoff", cap)
        set_(self, "multiplier", multiplier)
        set_(self, "jitter_ratio", jitter_ratio)
        set_(self, "retryable_status_codes", codes)
        set_(self, "respect_retry_after", respect_retry_after)
        set_(self, "max_retry_after", hint_cap)
        set_(self, "total_timeout", timeout)
        _set_guards(self, budget, circuit_breaker)

    @classmethod
    def disabled(cls) -> RetryConfig:
        """One attempt, no retries: the default."""
        return cls()

    @property
    def enabled(self) -> bool:
        """True when a failed attempt may be followed by another."""
        return self.max_attempts > 1
