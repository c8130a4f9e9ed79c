"""``RetryConfig``: the user's retry settings, a plain value validated once at construction.

Delay before retry n (n = 1, 2, ...)::

    base  = min(initial_backoff * multiplier ** (n - 1), max_backoff)
    delay = min(base * (1 + U(-jitter_ratio, +jitter_ratio)), max_backoff)

When the provider sent a wait hint (Retry-After, retry-after-ms, Gemini
RetryInfo) and ``respect_retry_after`` is on, the wait is ``max(delay, hint)``;
a hint above ``max_retry_after`` means give up at once. ``total_timeout``
bounds the whole logical call, waits included.

A plain frozen dataclass: the generated ``__init__``, ``replace``, equality,
``repr``, copy and pickle. Fields stored as given are checked in
``__post_init__``; the durations and the statuses, which are converted
(a ``timedelta`` to float seconds, any iterable to a frozenset), are
``_Setting`` fields: a dataclass field descriptor that converts on the way in,
so the type checker sees what each accepts and what it stores. They are read
only when an attempt failed, off the per-call path (``retryable_status_codes``
once per call). The budget and the breaker are typed by their Protocols.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, ClassVar, Generic, TypeVar

from ..errors import DEFAULT_RETRYABLE_STATUS_CODES
from ._protocols import Breaker, Pacer, RetryBudget

__all__ = ["DEFAULT_RETRYABLE_STATUS_CODES", "RetryConfig"]

_In = TypeVar("_In")
_Out = TypeVar("_Out")


class _Setting(Generic[_In, _Out]):
    """A field that accepts ``_In`` and stores what ``check(name, value)`` makes of it."""

    def __init__(self, default: _Out, check: Callable[[str, _In], _Out]) -> None:
        self._default = default
        self._check = check

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name
        self._key = f"_{name}"

    def __get__(self, config: object | None, owner: type | None = None) -> _Out:
        if config is None:  # the dataclass machinery reads the default from the class
            return self._default
        value: _Out = config.__dict__[self._key]
        return value

    def __set__(self, config: object, value: _In) -> None:
        config.__dict__[self._key] = self._check(self._name, value)


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise ValueError(f"{name} must be a number, got {value!r}")
    return float(value)


def _seconds(name: str, value: float | timedelta) -> float:
    """Seconds (a float or a ``timedelta``), at least 0; infinity means no bound."""
    if isinstance(value, timedelta):
        value = value.total_seconds()
    elif isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be seconds (float) or a timedelta, got {value!r}")
    if math.isnan(value) or value < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return float(value)


def _finite_seconds(name: str, value: float | timedelta) -> float:
    seconds = _seconds(name, value)
    if math.isinf(seconds):
        raise ValueError(f"{name} must be finite, got {seconds!r}")
    return seconds


def _optional_seconds(name: str, value: float | timedelta | None) -> float | None:
    return None if value is None else _seconds(name, value)


def _optional_positive(name: str, value: float | timedelta | None) -> float | None:
    if value is None:
        return None
    seconds = _seconds(name, value)
    if seconds == 0:
        raise ValueError(f"{name} must be > 0 seconds (None turns it off), got {value!r}")
    return seconds


def _attempts(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an int, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")


def _multiplier(name: str, value: object) -> None:
    number = _number(name, value)
    if math.isinf(number) or number < 1:
        raise ValueError(f"{name} must be finite and >= 1, got {value!r}")


def _ratio(name: str, value: object) -> None:
    if not 0 <= _number(name, value) <= 1:
        raise ValueError(f"{name} must be within [0, 1], got {value!r}")


def _flag(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be a bool, got {value!r}")


def _status_codes(name: str, value: Iterable[int]) -> frozenset[int]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise ValueError(f"{name} must be a collection of HTTP statuses, got {value!r}")
    codes = frozenset(value)
    for code in codes:
        if isinstance(code, bool) or not isinstance(code, int) or not 100 <= code <= 599:
            raise ValueError(f"{name} must be HTTP statuses 100-599, got {code!r}")
    return codes


def _instance(name: str, value: object, kind: type[Any], described: str) -> None:
    if value is not None and not isinstance(value, kind):
        raise ValueError(f"{name} must be a {described}, got {value!r}")


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
        pacer: a ``ProviderPacer`` (or ``RedisProviderPacer``) shared likewise:
            each attempt waits until the provider's learned rate limit admits
            it, within ``total_timeout``; None = no pacing.
        stream_idle_timeout: a streamed attempt that yields nothing for this
            long (before its first response or between two) is cut with
            ``ModelTimeoutError``: retried when it had yielded nothing, an
            error otherwise. None (default) = off.
        first_byte_timeout: an attempt whose first response takes longer is
            cut with ``ModelTimeoutError`` (retried by the usual rules); only
            for models without a ``timeout`` of their own. Meant for
            non-streamed calls, where nothing arrives before the whole answer.
            None (default) = off.

    Durations accept seconds (float) or ``datetime.timedelta`` and are stored
    as float seconds; the statuses accept any iterable and are stored as a
    frozenset. An invalid value raises ``ValueError`` naming the field.
    """

    max_attempts: int = 1
    initial_backoff: _Setting[float | timedelta, float] = _Setting(0.5, _finite_seconds)
    max_backoff: _Setting[float | timedelta, float] = _Setting(8.0, _seconds)
    multiplier: float = 2.0
    jitter_ratio: float = 0.2
    retryable_status_codes: _Setting[Iterable[int], frozenset[int]] = _Setting(
        DEFAULT_RETRYABLE_STATUS_CODES, _status_codes
    )
    respect_retry_after: bool = True
    max_retry_after: _Setting[float | timedelta, float] = _Setting(60.0, _seconds)
    total_timeout: _Setting[float | timedelta | None, float | None] = _Setting(
        None, _optional_seconds
    )
    budget: RetryBudget | None = None
    circuit_breaker: Breaker | None = None
    pacer: Pacer | None = None
    stream_idle_timeout: _Setting[float | timedelta | None, float | None] = _Setting(
        None, _optional_positive
    )
    first_byte_timeout: _Setting[float | timedelta | None, float | None] = _Setting(
        None, _optional_positive
    )

    bounds_attempts: ClassVar[bool] = False
    """Whether an attempt runs under a deadline of this config's own (``total_timeout``,
    ``first_byte_timeout`` or ``stream_idle_timeout``). Derived at construction, not a
    field: the retry loop asks on every call, and reading the settings costs a frame each."""
    shares_state: ClassVar[bool] = False
    """Whether a shared ``budget``, ``circuit_breaker`` or ``pacer`` takes part in each call
    (derived at construction, like ``bounds_attempts``): without one the retry loop makes
    no guards and no paced call."""

    def __post_init__(self) -> None:
        _attempts("max_attempts", self.max_attempts)
        _multiplier("multiplier", self.multiplier)
        _ratio("jitter_ratio", self.jitter_ratio)
        _flag("respect_retry_after", self.respect_retry_after)
        _instance("budget", self.budget, RetryBudget, "RetryBudget (allow/record)")
        _instance("circuit_breaker", self.circuit_breaker, Breaker, "CircuitBreaker")
        _instance("pacer", self.pacer, Pacer, "ProviderPacer (admit/release/observe)")
        if self.max_backoff < self.initial_backoff:
            raise ValueError(
                f"max_backoff ({self.max_backoff}) must be >= initial_backoff "
                f"({self.initial_backoff})"
            )
        if not (
            self.total_timeout is None
            and self.first_byte_timeout is None
            and self.stream_idle_timeout is None
        ):
            object.__setattr__(self, "bounds_attempts", True)  # frozen: set as ``__init__`` does
        if not (self.budget is None and self.circuit_breaker is None and self.pacer is None):
            object.__setattr__(self, "shares_state", True)

    @classmethod
    def disabled(cls) -> RetryConfig:
        """One attempt, no retries: the default.

        One shared instance (a config is immutable): building a config checks
        every field, ~21 us, which every turn run without a ``RunConfig`` paid.
        """
        if cls is RetryConfig:
            return _DISABLED
        return cls()

    @property
    def enabled(self) -> bool:
        """True when a failed attempt may be followed by another."""
        return self.max_attempts > 1


_DISABLED = RetryConfig()
