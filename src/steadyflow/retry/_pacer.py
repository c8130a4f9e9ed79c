"""``ProviderPacer``: send at the rate the provider accepts, instead of being refused.

A retry budget only decides what to do after a 429; a pacer keeps the 429
from happening. Per key (``provider:model``, like the budgets) it holds a
client-side limiter for requests and tokens per minute and delays each
attempt until the limiter admits it. It learns the limits:

- from the **rate-limit headers** every answer carries (OpenAI
  ``x-ratelimit-*``, Anthropic ``anthropic-ratelimit-*``: limit, remaining,
  reset, for requests and tokens), so after the first answer it sends at the
  provider's own rate, less ``headroom``;
- from **429s without headers** (Gemini sends none): an additive-increase,
  multiplicative-decrease rate, as the AWS SDKs' adaptive retry mode does;
- from ``requests_per_minute`` / ``tokens_per_minute`` when you know your tier.

The wait is part of the call: it ends within ``RetryConfig.total_timeout``
(and the pacer's ``max_wait``). A call that could only be admitted later fails
at once with ``PacingTimeoutError``: no provider request, no attempt counted.
A spent quota (``QuotaExhaustedError``) marks the key exhausted until its
reset: later calls fail fast without a request. The arithmetic is in
``_pace_state.py``; ``RedisProviderPacer`` shares the same state across a fleet.

What a provider says is bounded before either pacer learns from it, in one
place (``PacerSettings.learned`` and ``PacerSettings.hold``), whatever the
header it came in (``x-ratelimit-*``, ``anthropic-ratelimit-*``,
``retry-after``, ``retry-after-ms``, an error body's quota reset): a learned
limit is at least ``MIN_LEARNED_PER_MINUTE`` (one request, a thousand
tokens a minute: below every real tier), and every hold (a quota's reset, a
limit's reset) is at most ``max_hold`` (an hour by default). So one absurd
header (``x-ratelimit-limit-requests: 1e-300``, ``retry-after: 1e308``, a
reset in year 9999) slows a key to a request a minute or holds it for an
hour, never for years: the next answer teaches the pacer the truth.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from datetime import timedelta
from typing import Self

from ..models._rate_limits import Limit, read_rate_limits
from . import _validate
from ._clock import Clock, current_clock
from ._pace_state import KeyState
from ._protocols import PaceOutcome, PacePass

__all__ = ["MIN_LEARNED_PER_MINUTE", "PacerSettings", "ProviderPacer"]

MIN_LEARNED_PER_MINUTE = {
    "requests": 1.0,
    "tokens": 1000.0,
    "input_tokens": 1000.0,
    "output_tokens": 1000.0,
}
"""The lowest limit a pacer learns from headers, per dimension (a lower one is raised to it)."""


class PacerSettings:
    """The checked settings both pacers share (see ``ProviderPacer`` for their meaning)."""

    __slots__ = (
        "decrease",
        "headroom",
        "learn_from_headers",
        "max_hold",
        "max_wait",
        "quota_hold",
        "recovery",
        "requests_per_minute",
        "tokens_per_minute",
    )

    def __init__(
        self,
        owner: str,
        *,
        requests_per_minute: float | None,
        tokens_per_minute: float | None,
        headroom: float,
        max_wait: float | timedelta,
        learn_from_headers: bool,
        decrease: float,
        recovery: float | timedelta,
        quota_hold: float | timedelta,
        max_hold: float | timedelta = 3600.0,
    ) -> None:
        def limit(name: str, value: float | None) -> float | None:
            if value is None:
                return None
            return _validate.number(owner, name, value, minimum=0.0, inclusive=False)

        self.requests_per_minute = limit("requests_per_minute", requests_per_minute)
        self.tokens_per_minute = limit("tokens_per_minute", tokens_per_minute)
        self.headroom = _validate.number(owner, "headroom", headroom, minimum=0.0, inclusive=True)
        if self.headroom >= 1:
            raise ValueError(f"{owner}: headroom must be < 1, got {headroom!r}")
        self.max_wait = _validate.seconds(owner, "max_wait", max_wait, positive=False)
        if not isinstance(learn_from_headers, bool):
            raise ValueError(
                f"{owner}: learn_from_headers must be a bool, got {learn_from_headers!r}"
            )
        self.learn_from_headers = learn_from_headers
        self.decrease = _validate.number(owner, "decrease", decrease, minimum=0.0, inclusive=False)
        if self.decrease >= 1:
            raise ValueError(f"{owner}: decrease must be < 1, got {decrease!r}")
        self.recovery = _validate.seconds(owner, "recovery", recovery, positive=True)
        self.quota_hold = _validate.seconds(owner, "quota_hold", quota_hold, positive=True)
        self.max_hold = _validate.seconds(owner, "max_hold", max_hold, positive=True)

    def learned(self, headers: Mapping[str, str]) -> dict[str, Limit]:
        """The limits ``headers`` report, bounded (module docstring); {} when not learning."""
        if not self.learn_from_headers:
            return {}
        return {
            dimension: Limit(
                max(limit.limit, MIN_LEARNED_PER_MINUTE[dimension]),
                limit.remaining,
                None if limit.reset is None else min(limit.reset, self.max_hold),
            )
            for dimension, limit in read_rate_limits(headers).items()
        }

    def hold(self, quota_reset: float | None) -> float | None:
        """Seconds a spent quota holds the key: its reset, or ``quota_hold`` when unknown.

        At most ``max_hold``; None when no quota was spent.
        """
        if quota_reset is None:
            return None
        known = math.isfinite(quota_reset) and quota_reset >= 0
        return min(quota_reset if known else self.quota_hold, self.max_hold)

    def new_state(self, now: float) -> KeyState:
        """A key's state, with the limits configured up front."""
        state = KeyState(now)
        for dimension, per_minute in (
            ("requests", self.requests_per_minute),
            ("tokens", self.tokens_per_minute),
        ):
            if per_minute is not None:
                bucket = state.buckets[dimension]
                bucket.rate = per_minute / 60.0 * (1.0 - self.headroom)
                bucket.capacity = bucket.level = max(1.0, bucket.rate)
        return state


class ProviderPacer:
    """A client-side limiter per ``provider:model`` key that learns the provider's limits.

    Put one in ``RetryConfig(pacer=...)``; every call using that config
    shares it (one process; ``RedisProviderPacer`` for a fleet).

    Args:
        requests_per_minute: a requests limit known up front (your tier), used
            until headers say otherwise. None: learn it.
        tokens_per_minute: likewise for tokens (input plus ``max_output_tokens``
            estimated per request, corrected by the usage reported).
        headroom: share of a learned limit left unused (0.05 sends at 95%),
            for other clients of the same key and for clock drift.
        max_wait: the longest a call waits for the pacer when its
            ``total_timeout`` allows more (or is unset).
        learn_from_headers: read the rate-limit headers of answers and errors.
        decrease: without headers, a 429 cuts the rate to this share of the
            rate that was refused (AIMD; AWS uses 0.7).
        recovery: without headers, seconds for the rate to climb back to the
            refused rate after a cut (it then keeps climbing until refused).
            Limits are per minute: probing on that timescale costs fewer
            refusals than a fast climb (in the storm bench, 30 s instead of
            10 s cuts the attempts per served call from 1.64 to 1.15 for 1%
            fewer calls served).
        quota_hold: how long a key stays exhausted after a quota error that
            named no reset (OpenAI's ``insufficient_quota``).
        max_hold: the longest a key stays exhausted, whatever reset the
            provider named (a daily quota is then probed again once an hour:
            one refused request an hour, against a key locked by one absurd
            header); also the cap on a limit's reset.
        clock: where time is read; default ``current_clock()``.
    """

    def __init__(
        self,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        *,
        headroom: float = 0.05,
        max_wait: float | timedelta = 60.0,
        learn_from_headers: bool = True,
        decrease: float = 0.7,
        recovery: float | timedelta = 30.0,
        quota_hold: float | timedelta = 900.0,
        max_hold: float | timedelta = 3600.0,
        clock: Clock | None = None,
    ) -> None:
        self.settings = PacerSettings(
            "ProviderPacer",
            requests_per_minute=requests_per_minute,
            tokens_per_minute=tokens_per_minute,
            headroom=headroom,
            max_wait=max_wait,
            learn_from_headers=learn_from_headers,
            decrease=decrease,
            recovery=recovery,
            quota_hold=quota_hold,
            max_hold=max_hold,
        )
        self._clock = clock
        self._keys: dict[str, KeyState] = {}
        self._lock = threading.Lock()

    def __deepcopy__(self, memo: dict[int, object]) -> Self:
        return self  # shared state: a copied RetryConfig must share it too

    def __repr__(self) -> str:
        s = self.settings
        return (
            f"ProviderPacer(requests_per_minute={s.requests_per_minute}, "
            f"tokens_per_minute={s.tokens_per_minute}, headroom={s.headroom:g})"
        )

    def now(self) -> float:
        """The time the limiters are read at."""
        return (self._clock or current_clock()).monotonic()

    def rate(self, key: str, dimension: str = "requests") -> float | None:
        """What ``key`` is paced at now, per second (None: not limited)."""
        with self._lock:
            state = self._keys.get(key)
            return None if state is None else state.buckets[dimension].rate

    async def admit(
        self, key: str, cost: Mapping[str, float], *, earliest: float, latest: float
    ) -> PacePass:
        """Reserve the first slot ``earliest`` seconds from now or later, up to ``latest``."""
        now = self.now()
        with self._lock:
            state = self._state(key, now)
            if now < state.exhausted_until:
                left = state.exhausted_until - now
                return PacePass(key, admitted=False, wait=math.inf, quota_reset=left)
            admitted = state.admit(cost, now, earliest, min(latest, self.settings.max_wait))
        if not isinstance(admitted, tuple):
            return PacePass(key, admitted=False, wait=admitted)
        wait, marks = admitted
        return PacePass(key, admitted=True, wait=wait, cost=dict(cost), marks=marks)

    async def release(self, ticket: PacePass) -> None:
        """Give back the slot of an attempt that was not sent."""
        if not ticket.admitted:
            return
        with self._lock:
            self._state(ticket.key, self.now()).release(ticket.cost, self.now())

    async def observe(self, ticket: PacePass, outcome: PaceOutcome) -> None:
        """Learn from the headers, a refusal, a spent quota or the usage of a sent attempt."""
        if not ticket.admitted:
            return
        settings, now = self.settings, self.now()
        limits = settings.learned(outcome.headers)
        hold = settings.hold(outcome.quota_reset)
        with self._lock:
            state = self._state(ticket.key, now)
            if hold is not None:
                state.exhausted_until = now + hold
            if limits:
                state.sync(limits, ticket.marks, now, settings.headroom)
            if outcome.throttled:
                state.throttled(ticket.marks[0], now, settings.decrease, settings.recovery)
            elif outcome.answered:
                state.answered(ticket.marks[1], now)
            if outcome.used:
                state.correct(ticket.cost, outcome.used, now)

    def _state(self, key: str, now: float) -> KeyState:
        state = self._keys.get(key)
        if state is None:
            state = self._keys[key] = self.settings.new_state(now)
        return state
