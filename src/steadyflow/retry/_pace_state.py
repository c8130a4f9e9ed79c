"""The arithmetic of pacing one key: a token bucket per dimension that reserves future slots.

Each dimension (requests, tokens, input tokens, output tokens) is a bucket
holding ``level`` units, refilled at ``rate`` per second up to ``capacity``;
a dimension whose limit is not known (``rate`` None) never makes anyone wait.
An attempt costing ``c`` at ``earliest`` seconds from now may be sent after::

    level_then = min(capacity, level + rate * earliest)
    wait       = earliest                                   if level_then >= c
               = earliest + (c - level_then) / rate         otherwise

and is charged at once (``level -= c``, which may go below zero: the debt is
the queue of slots already promised), so the next caller's wait is known at
once too, and a wait past the deadline is refused before anything is sent.
The deadline leaves room for the attempt itself: a slot is refused when
``wait + latency > latest``, ``latency`` being the key's typical answer time
(an exponential average over its answered attempts, weight 0.2), since an
attempt sent with less time left than that would be cut by the call's
deadline after costing the provider a request.

Learning, per dimension:

- **headers** (``sync``): the provider's ``remaining`` is what it had right
  after the attempt was sent. Since then it refilled at the full ``rate`` and
  we promised ``spent - mark`` more, so it has about
  ``remaining + rate * (now - sent_at) - (spent - mark)``; the level is
  lowered to that, never raised (a late or reordered header must not let a
  burst through). The limit sets ``rate = limit / 60 * (1 - headroom)``
  and ``capacity = remaining + reset * limit / 60``: what is left plus what
  the reset refills, the provider's burst.
- **refusals without headers** (``throttled``, requests only; AIMD as in the
  AWS SDKs' adaptive mode): the rate becomes ``decrease`` times the rate that
  was refused (the measured send rate while there was none), once per
  round: only an attempt admitted after the last decrease lowers it again.
  Each success then adds ``(refused - rate_after) / recovery`` per second
  elapsed, so the rate is back where it was refused ``recovery`` seconds
  later and keeps probing above it.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping

from ..models._rate_limits import DIMENSIONS, Limit

__all__ = ["Bucket", "KeyState"]

_MIN_RATE = 1.0 / 60.0  # one request a minute: AIMD never stops a key entirely


class Bucket:
    """One dimension's bucket (see the module docstring)."""

    __slots__ = ("capacity", "level", "rate", "spent", "updated")

    def __init__(self, now: float) -> None:
        self.rate: float | None = None
        self.capacity = math.inf
        self.level = 0.0
        self.updated = now
        self.spent = 0.0

    def refill(self, now: float) -> None:
        """Bring ``level`` to ``now``."""
        if self.rate is not None and now > self.updated:
            self.level = min(self.capacity, self.level + self.rate * (now - self.updated))
        self.updated = max(self.updated, now)

    def wait(self, cost: float, earliest: float) -> float:
        """Seconds from the last refill until ``cost`` fits, at least ``earliest``."""
        if self.rate is None or cost <= 0:
            return earliest
        then = min(self.capacity, self.level + self.rate * earliest)
        return earliest if then >= cost else earliest + (cost - then) / self.rate

    def charge(self, cost: float) -> None:
        """Take ``cost`` (a negative cost gives back)."""
        self.spent += cost
        if self.rate is not None:
            self.level = min(self.capacity, self.level - cost)

    def sync(self, limit: Limit, sent_at: float, mark: float, now: float, headroom: float) -> None:
        """Learn the limit and lower the level to what the provider has left (never raise it)."""
        per_second = limit.limit / 60.0
        if per_second <= 0:
            return
        known = self.rate is not None
        self.refill(now)
        self.rate = max(per_second * (1.0 - headroom), 1e-9)
        if limit.reset is not None:
            self.capacity = min(max(1.0, limit.remaining + limit.reset * per_second), limit.limit)
        elif not known:
            self.capacity = max(1.0, per_second)
        implied = limit.remaining + per_second * max(0.0, now - sent_at) - (self.spent - mark)
        self.level = min(self.capacity, implied if not known else min(self.level, implied))


class KeyState:
    """Everything a pacer knows about one key."""

    __slots__ = (
        "admitted",
        "buckets",
        "cut_at",
        "exhausted_until",
        "grown_at",
        "latency",
        "learned",
        "recent",
        "refused_rate",
        "slope",
    )

    def __init__(self, now: float) -> None:
        self.buckets = {d: Bucket(now) for d in DIMENSIONS}
        self.admitted = 0  # attempts admitted so far; a ticket's number
        self.cut_at = 0  # AIMD: the last decrease happened after this many admissions
        self.learned = False  # a header told the requests limit: AIMD is off
        self.refused_rate = 0.0
        self.slope = 0.0
        self.grown_at = now
        self.exhausted_until = -math.inf
        self.latency: float | None = None  # typical seconds from send to answer
        self.recent: deque[float] = deque()  # send times over the last second

    def admit(
        self, cost: Mapping[str, float], now: float, earliest: float, latest: float
    ) -> tuple[float, tuple[float, ...]] | float:
        """``(wait, marks)`` with the cost charged, or the wait that would pass ``latest``."""
        wait = earliest
        for dimension, bucket in self.buckets.items():
            bucket.refill(now)
            wait = max(wait, bucket.wait(cost.get(dimension, 0.0), earliest))
        if wait + (self.latency or 0.0) > latest:
            return wait
        for dimension, bucket in self.buckets.items():
            bucket.charge(cost.get(dimension, 0.0))
        self.admitted += 1
        self._count_send(now, now + wait)
        marks = tuple(b.spent for b in self.buckets.values())
        return wait, (float(self.admitted), now + wait, *marks)

    def release(self, cost: Mapping[str, float], now: float) -> None:
        """Give back what an unsent attempt was charged."""
        for dimension, bucket in self.buckets.items():
            bucket.refill(now)
            bucket.charge(-cost.get(dimension, 0.0))

    def sync(
        self, limits: Mapping[str, Limit], marks: tuple[float, ...], now: float, headroom: float
    ) -> None:
        """Learn from an answer's rate-limit headers (see ``Bucket.sync``)."""
        sent_at = marks[1]
        for index, (dimension, bucket) in enumerate(self.buckets.items()):
            limit = limits.get(dimension)
            if limit is not None:
                bucket.sync(limit, sent_at, marks[2 + index], now, headroom)
        if "requests" in limits:
            self.learned = True

    def throttled(self, number: float, now: float, decrease: float, recovery: float) -> None:
        """A refusal without headers: cut the request rate, once per round."""
        bucket = self.buckets["requests"]
        bucket.refill(now)
        if self.learned:  # the headers rule; a refusal still says nothing is left now
            bucket.level = min(bucket.level, 0.0)
            return
        if number <= self.cut_at:
            return
        self._expire(now)
        measured = max(float(len(self.recent)), 1.0)
        refused = measured if bucket.rate is None else min(bucket.rate, measured)
        bucket.rate = max(_MIN_RATE, decrease * refused)
        bucket.capacity = max(1.0, bucket.rate)
        bucket.level = min(bucket.level, 0.0)
        self.refused_rate = refused
        self.slope = (refused - bucket.rate) / recovery
        self.cut_at = self.admitted
        self.grown_at = now

    def answered(self, sent_at: float, now: float) -> None:
        """An answer: the latency average learns, and without headers AIMD adds to the rate."""
        sample = max(0.0, now - sent_at)
        self.latency = sample if self.latency is None else 0.8 * self.latency + 0.2 * sample
        bucket = self.buckets["requests"]
        if self.learned or bucket.rate is None or now <= self.grown_at:
            return
        bucket.refill(now)
        bucket.rate += self.slope * (now - self.grown_at)
        bucket.capacity = max(1.0, bucket.rate)
        self.grown_at = now

    def correct(self, cost: Mapping[str, float], used: Mapping[str, float], now: float) -> None:
        """Charge what an attempt really used instead of what it was estimated at."""
        for dimension, amount in used.items():
            bucket = self.buckets.get(dimension)
            if bucket is not None and dimension != "requests":
                bucket.refill(now)
                bucket.charge(amount - cost.get(dimension, 0.0))

    def _count_send(self, now: float, at: float) -> None:
        if self.buckets["requests"].rate is None:
            self.recent.append(at)
        self._expire(now)

    def _expire(self, now: float) -> None:
        recent = self.recent
        while recent and recent[0] <= now - 1.0:
            recent.popleft()
