"""``InMemorySpendStore``: spend limits within one process.

Each operation runs without awaiting anything, so on one event loop it is
atomic by construction; a lock makes it so across threads too. Entries
older than ``retention_seconds`` are dropped as new ones come.

A reservation runs on every model attempt under a spend limit, so its cost
must not grow with the spend already recorded: each scope (the app, a
user, a session) keeps its charged entries' times and running totals in
lists ordered by time (``_Series``), and the spend inside a window is one
bisection and a subtraction. The reservations in flight, which are few, are
kept apart and scanned.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from .spend import Charge, Refusal, SpendCheck, SpendEntry, Who

__all__ = ["InMemorySpendStore"]


@dataclass(slots=True)
class _Series:
    """One scope's charged entries by time, with running totals.

    ``cost[i]`` and ``tokens[i]`` are the sums of every entry up to the
    ``i``-th (``base_*``: of those dropped before the first kept), so the
    spend after any time is a bisection and a subtraction. An entry settled
    out of time order goes in its place and moves the totals after it (the
    few attempts that started later and ended sooner).
    """

    at: list[float] = field(default_factory=lambda: [])
    cost: list[int] = field(default_factory=lambda: [])
    tokens: list[int] = field(default_factory=lambda: [])
    base_cost: int = 0
    base_tokens: int = 0

    def add(self, entry: SpendEntry) -> None:
        index = bisect.bisect_right(self.at, entry.at)  # the end, unless settled out of order
        cost, tokens = self._before(index)
        self.at.insert(index, entry.at)
        self.cost.insert(index, cost + entry.cost_nano)
        self.tokens.insert(index, tokens + entry.tokens)
        for later in range(index + 1, len(self.at)):
            self.cost[later] += entry.cost_nano
            self.tokens[later] += entry.tokens

    def since(self, start: float) -> Charge:
        """What was charged after ``start``."""
        if not self.at:
            return Charge()
        cost, tokens = self._before(bisect.bisect_right(self.at, start))
        return Charge(self.cost[-1] - cost, self.tokens[-1] - tokens)

    def drop_until(self, cutoff: float) -> None:
        index = bisect.bisect_right(self.at, cutoff)
        if index:
            self.base_cost, self.base_tokens = self.cost[index - 1], self.tokens[index - 1]
            del self.at[:index], self.cost[:index], self.tokens[:index]

    def _before(self, index: int) -> tuple[int, int]:
        """The totals of the entries before ``index``."""
        if index == 0:
            return self.base_cost, self.base_tokens
        return self.cost[index - 1], self.tokens[index - 1]


def _scope_keys(entry: SpendEntry) -> tuple[tuple[str, ...], ...]:
    """The keys of the three scopes ``entry`` counts in: its app, user and session."""
    return (
        ("app", entry.app),
        ("user", entry.app, entry.user),
        ("session", entry.app, entry.user, entry.session),
    )


_SCOPE_INDEX = {"app": 0, "user": 1, "session": 2}


class InMemorySpendStore:
    """Spend entries in memory, for one process (tests, scripts, a single server).

    Args:
        retention_seconds: how long charged entries are kept (for limits and
            ``steadyflow usage``); default 31 days.
    """

    def __init__(self, retention_seconds: float = 31 * 86400.0) -> None:
        self._entries: dict[str, SpendEntry] = {}
        self._holds: dict[str, SpendEntry] = {}
        self._series: dict[tuple[str, ...], _Series] = {}
        self._lock = threading.Lock()
        self._retention = retention_seconds
        self._pruned_at = float("-inf")

    async def reserve(self, hold: SpendEntry, checks: Sequence[SpendCheck]) -> Refusal | None:
        """See ``SpendStore.reserve``."""
        now = hold.at
        keys = _scope_keys(hold)
        with self._lock:
            self._prune(now)
            for check in checks:
                since = now - check.seconds
                series = self._series.get(keys[_SCOPE_INDEX[check.scope]])
                spent = Charge() if series is None else series.since(since)
                for held in self._holds.values():
                    if check.matches(held, hold) and held.counts(since, now):
                        spent = Charge(spent.cost_nano + held.cost_nano, spent.tokens + held.tokens)
                if check.refuses(spent, hold.charge):
                    return Refusal(check, spent)
            self._holds[hold.id] = hold
            return None

    async def settle(self, hold_id: str, who: Who, actual: Charge | None, now: float) -> None:
        """See ``SpendStore.settle``."""
        self.settle_now(hold_id, who, actual, now)

    def settle_now(self, hold_id: str, who: Who, actual: Charge | None, now: float) -> None:
        """``settle`` without a coroutine: nothing here waits (``SpendLimits`` uses it)."""
        with self._lock:
            entry = self._holds.pop(hold_id, None)
            if entry is None or actual is None:
                return
            charged = SpendEntry(  # spelled out: ``dataclasses.replace`` costs 3x more here
                entry.id,
                entry.app,
                entry.user,
                entry.session,
                entry.invocation,
                entry.model,
                entry.at,
                actual.cost_nano,
                actual.tokens,
            )
            self._entries[hold_id] = charged
            for key in _scope_keys(charged):
                series = self._series.get(key)
                if series is None:
                    series = self._series[key] = _Series()
                series.add(charged)

    async def entries(self, app: str | None, since: float) -> list[SpendEntry]:
        """See ``SpendStore.entries``."""
        with self._lock:
            return [
                e for e in self._entries.values() if e.at > since and (app is None or e.app == app)
            ]

    def _prune(self, now: float) -> None:
        """Drop what left the retention window, and lapsed holds (at most once a minute)."""
        if now - self._pruned_at < 60.0:
            return
        self._pruned_at = now
        cutoff = now - self._retention
        for key in [key for key, e in self._entries.items() if e.at <= cutoff]:
            del self._entries[key]
        for key in [key for key, e in self._holds.items() if not e.counts(cutoff, now)]:
            del self._holds[key]
        for scope, series in list(self._series.items()):
            series.drop_until(cutoff)
            if not series.at:
                del self._series[scope]
