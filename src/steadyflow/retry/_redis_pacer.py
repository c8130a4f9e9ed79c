"""``RedisProviderPacer``: one pacer for a whole fleet, its state in Redis.

Forty workers each pacing themselves at a provider's limit send forty times
that limit. ``RedisProviderPacer`` keeps ``ProviderPacer``'s state per key in
one Redis hash, updated by one Lua script per step (``_redis_pace_scripts``):
every worker's reservation takes from the same level, and every answer's
rate-limit headers correct it for all. Redis runs a script without
interleaving, so two workers never take the same slot.

Like the Redis budgets, it never fails a call: while Redis is unavailable
each process paces with its own in-process ``ProviderPacer`` (same
settings), a warning is logged once, and Redis is tried again after
``reconnect_after`` seconds. Needs the ``redis`` extra.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from ..models._rate_limits import DIMENSIONS
from ._clock import Clock
from ._pacer import ProviderPacer
from ._protocols import PaceOutcome, PacePass
from ._redis_budget import RedisShared

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["RedisProviderPacer"]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _arg(value: float | None) -> str:
    return "" if value is None else repr(float(value))


class RedisProviderPacer(RedisShared):
    """A ``ProviderPacer`` whose limiters live in Redis, shared by every process.

    Args:
        pacer: the settings (``ProviderPacer(...)``); also the in-process pacer
            used while Redis is unavailable. Every process must configure the same.
        url: ``redis://[user:password@]host:port/db`` (one pool per event loop), or
        client: a ``redis.asyncio.Redis`` to use as is.
        prefix: prepended to every Redis key (``{prefix}pace:{key}``).
        clock: the time limiters are read at; default the Redis server's
            ``TIME`` (one clock for the whole fleet).
        timeout: seconds a Redis command may take before it counts as down.
        reconnect_after: seconds on the in-process pacer before Redis is tried again.
        idle_ttl: seconds after which an untouched key is forgotten.

    Call ``await pacer.aclose()`` before the event loop ends.
    """

    def __init__(
        self,
        pacer: ProviderPacer | None = None,
        *,
        url: str | None = None,
        client: Redis | None = None,
        prefix: str = "steadyflow:retry:",
        clock: Clock | None = None,
        timeout: float | timedelta = 0.25,
        reconnect_after: float | timedelta = 5.0,
        idle_ttl: float | timedelta = 86400.0,
    ) -> None:
        pacer = ProviderPacer() if pacer is None else pacer
        if not isinstance(pacer, ProviderPacer):
            raise ValueError(f"RedisProviderPacer shares a ProviderPacer, got {pacer!r}")
        super().__init__(url, client, prefix, clock, timeout, reconnect_after, idle_ttl)
        self.local = pacer
        self.settings = pacer.settings

    def __repr__(self) -> str:
        return f"RedisProviderPacer({self.local!r}, url={self._store.where!r})"

    async def admit(
        self, key: str, cost: Mapping[str, float], *, earliest: float, latest: float
    ) -> PacePass:
        """Reserve the first shared slot ``earliest`` s from now or later, up to ``latest``."""
        s, store = self.settings, self._store
        args = [
            store.now_arg(),
            repr(s.headroom),
            _arg(s.requests_per_minute),
            _arg(s.tokens_per_minute),
            repr(float(earliest)),
            repr(min(float(latest), s.max_wait)),
            store.idle_ttl,
            *(repr(float(cost.get(d, 0.0))) for d in DIMENSIONS),
        ]
        reply = await store.run("pace_admit", f"pace:{key}", *args)
        if reply is None:
            return await self.local.admit(key, cost, earliest=earliest, latest=latest)
        status, first = _text(reply[0]), float(_text(reply[1]))
        if status == "quota":
            return PacePass(key, admitted=False, wait=math.inf, quota_reset=first)
        if status == "late":
            return PacePass(key, admitted=False, wait=first)
        marks = tuple(float(_text(v)) for v in reply[2:])
        return PacePass(key, admitted=True, wait=first, cost=dict(cost), marks=marks)

    async def release(self, ticket: PacePass) -> None:
        """Give back the shared slot of an attempt that was not sent."""
        if not ticket.admitted:
            return
        store = self._store
        costs = (repr(float(ticket.cost.get(d, 0.0))) for d in DIMENSIONS)
        args = [store.now_arg(), store.idle_ttl, *costs]
        if await store.run("pace_release", f"pace:{ticket.key}", *args) is None:
            await self.local.release(ticket)

    async def observe(self, ticket: PacePass, outcome: PaceOutcome) -> None:
        """Learn, for the whole fleet, from how a sent attempt ended."""
        if not ticket.admitted or len(ticket.marks) != 2 + len(DIMENSIONS):
            return
        s, store = self.settings, self._store
        limits = s.learned(outcome.headers)
        hold = s.hold(outcome.quota_reset)
        per_dimension: list[str] = []
        for dimension in DIMENSIONS:
            limit = limits.get(dimension)
            if limit is None:
                per_dimension += ["", "", ""]
            else:
                per_dimension += [repr(limit.limit), repr(limit.remaining), _arg(limit.reset)]
        used = outcome.used or {}
        args = [
            store.now_arg(),
            repr(s.headroom),
            repr(s.decrease),
            repr(s.recovery),
            store.idle_ttl,
            *(repr(mark) for mark in ticket.marks),
            _arg(hold),
            "1" if outcome.throttled else "0",
            "1" if outcome.answered else "0",
            *per_dimension,
            *(_arg(used.get(d)) for d in DIMENSIONS),
            *(repr(float(ticket.cost.get(d, 0.0))) for d in DIMENSIONS),
        ]
        if await store.run("pace_observe", f"pace:{ticket.key}", *args) is None:
            await self.local.observe(ticket, outcome)
