"""Retry budgets: caps on retries shared by every call, so retrying cannot amplify an outage.

Per-call retries alone multiply load exactly when a provider can least take
it: with three attempts per call, an overloaded provider sees three times the
traffic. A budget is consulted before every retry (never before a first
attempt, unless an ``AdaptiveThrottle`` is told to) and is told how every
attempt ended, so retries stop once failures dominate and resume as the
provider recovers. Two algorithms, both keyed (default ``provider:model``) so
one failing model never blocks another:

- ``TokenBucketRetryBudget`` (gRPC retry throttling): a transient failure
  costs 1 token, any other outcome adds ``token_ratio``; no retries while
  ``tokens <= max_tokens / 2``. Deterministic: at most ``max_tokens / 2``
  retries in a row of failures, however many callers.
- ``AdaptiveThrottle`` (Google SRE client-side throttling): over the last
  ``window`` seconds, a retry is shed with probability
  ``max(0, (requests - k * accepts) / (requests + 1))``.

``RedisRetryBudget`` (``_redis_budget.py``) shares either one across processes.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Self

from . import _validate
from ._clock import Clock, current_clock
from ._protocols import RetryBudget
from ._window import SlidingCounts

__all__ = [
    "AdaptiveThrottle",
    "RetryBudget",
    "TokenBucketRetryBudget",
    "budget_key",
    "shed_probability",
]


def budget_key(provider: str, model: str) -> str:
    """The default key of a budget or breaker: ``"provider:model"``."""
    return f"{provider}:{model}"


_MILLI = 1000


class TokenBucketRetryBudget:
    """gRPC-style retry throttling: tokens drain on failures, refill on successes.

    Each key starts with ``max_tokens``. A transient failure costs 1 token
    (down to 0); any other outcome adds ``token_ratio`` (up to
    ``max_tokens``). Retries are allowed only while ``tokens > max_tokens / 2``;
    first attempts are never refused. Tokens are kept in thousandths, so the
    arithmetic is exact (``token_ratio`` counts to three decimals, like gRPC).

    Args:
        max_tokens: the bucket's size (> 0).
        token_ratio: tokens a success adds back (>= 0.001).
    """

    def __init__(self, max_tokens: float = 100, token_ratio: float = 0.1) -> None:
        owner = "TokenBucketRetryBudget"
        size = _validate.number(owner, "max_tokens", max_tokens, minimum=0.0, inclusive=False)
        ratio = _validate.number(owner, "token_ratio", token_ratio, minimum=0.001, inclusive=True)
        self.max_tokens = size
        self.token_ratio = ratio
        self._max_milli = round(size * _MILLI)
        self._ratio_milli = round(ratio * _MILLI)
        self._milli: dict[str, int] = {}
        self._lock = threading.Lock()

    def __deepcopy__(self, memo: dict[int, object]) -> Self:
        return self  # shared state: a copied RetryConfig must share it too

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"{name}(max_tokens={self.max_tokens:g}, token_ratio={self.token_ratio:g})"

    def tokens(self, key: str) -> float:
        """The tokens ``key`` holds now."""
        return self._milli.get(key, self._max_milli) / _MILLI

    async def allow(self, key: str, *, retry: bool) -> bool:
        """First attempts always; retries while ``tokens > max_tokens / 2``."""
        if not retry:
            return True
        return 2 * self._milli.get(key, self._max_milli) > self._max_milli

    async def record(self, key: str, *, failed: bool) -> None:
        """A failure takes 1 token, anything else adds ``token_ratio``."""
        with self._lock:
            milli = self._milli.get(key, self._max_milli)
            if failed:
                milli = max(milli - _MILLI, 0)
            else:
                milli = min(milli + self._ratio_milli, self._max_milli)
            self._milli[key] = milli


def shed_probability(requests: int, accepts: int, k: float) -> float:
    """SRE client-side throttling: ``max(0, (requests - k * accepts) / (requests + 1))``."""
    return max(0.0, (requests - k * accepts) / (requests + 1))


class AdaptiveThrottle:
    """Google SRE client-side adaptive throttling, applied to retries.

    Over the last ``window`` seconds each key counts *requests* (attempts,
    plus attempts this throttle shed) and *accepts* (attempts the provider
    answered without a transient failure). A retry is shed with probability
    ``max(0, (requests - k * accepts) / (requests + 1))``: nothing is shed
    while the provider accepts at least ``1/k`` of the traffic, and almost
    everything during an outage. The window slides in steps of
    ``window / 12``.

    Args:
        k: how much more traffic than the provider accepts is still sent
            (>= 1; 2 is the SRE book's choice, lower sheds sooner).
        window: seconds of history (float or ``timedelta``).
        throttle_first_attempts: also shed first attempts; a shed first
            attempt fails fast with ``CircuitOpenError``.
        clock: where time is read; default ``current_clock()``.
        random_source: uniform draws from [0, 1); default ``random.random``.
    """

    def __init__(
        self,
        k: float = 2.0,
        window: float | timedelta = 120.0,
        *,
        throttle_first_attempts: bool = False,
        clock: Clock | None = None,
        random_source: Callable[[], float] | None = None,
    ) -> None:
        owner = "AdaptiveThrottle"
        self.k = _validate.number(owner, "k", k, minimum=1.0, inclusive=True)
        self.window = _validate.seconds(owner, "window", window, positive=True)
        if not isinstance(throttle_first_attempts, bool):
            raise ValueError(
                f"{owner}: throttle_first_attempts must be a bool, got {throttle_first_attempts!r}"
            )
        self.throttle_first_attempts = throttle_first_attempts
        self._clock = clock
        self.random_source = random_source if random_source is not None else random.random
        self._counts: dict[str, SlidingCounts] = {}
        self._lock = threading.Lock()

    def __deepcopy__(self, memo: dict[int, object]) -> Self:
        return self  # shared state: a copied RetryConfig must share it too

    def __repr__(self) -> str:
        return f"AdaptiveThrottle(k={self.k:g}, window={self.window:g})"

    def now(self) -> float:
        """The time the windows are read at."""
        return (self._clock or current_clock()).monotonic()

    def counts(self, key: str) -> tuple[int, int]:
        """``(requests, accepts)`` of ``key`` within the window."""
        with self._lock:
            return self._window(key).totals(self.now())

    def probability(self, key: str) -> float:
        """The chance that a retry for ``key`` is shed now."""
        return shed_probability(*self.counts(key), self.k)

    async def allow(self, key: str, *, retry: bool) -> bool:
        """Shed with the SRE probability; a shed attempt still counts as a request."""
        if not retry and not self.throttle_first_attempts:
            return True
        now = self.now()
        with self._lock:
            window = self._window(key)
            requests, accepts = window.totals(now)
            if self.random_source() >= shed_probability(requests, accepts, self.k):
                return True
            window.add(now, 1, 0)
            return False

    async def record(self, key: str, *, failed: bool) -> None:
        """Count one request, and one accept unless it failed transiently."""
        now = self.now()
        with self._lock:
            self._window(key).add(now, 1, 0 if failed else 1)

    def _window(self, key: str) -> SlidingCounts:
        window = self._counts.get(key)
        if window is None:
            window = self._counts[key] = SlidingCounts(self.window)
        return window
