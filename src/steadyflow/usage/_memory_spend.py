"""``InMemorySpendStore``: spend limits within one process.

Each operation runs without awaiting anything, so on one event loop it is
atomic by construction; a lock makes it so across threads too. Entries
older than ``retention_seconds`` are dropped as new ones come.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace

from .spend import Charge, Refusal, SpendCheck, SpendEntry, Who

__all__ = ["InMemorySpendStore"]


class InMemorySpendStore:
    """Spend entries in a list, for one process (tests, scripts, a single server).

    Args:
        retention_seconds: how long charged entries are kept (for limits and
            ``steadyflow usage``); default 31 days.
    """

    def __init__(self, retention_seconds: float = 31 * 86400.0) -> None:
        self._entries: dict[str, SpendEntry] = {}
        self._lock = threading.Lock()
        self._retention = retention_seconds

    async def reserve(self, hold: SpendEntry, checks: Sequence[SpendCheck]) -> Refusal | None:
        """See ``SpendStore.reserve``."""
        now = hold.at
        with self._lock:
            self._prune(now)
            for check in checks:
                since = now - check.seconds
                counted = [
                    e
                    for e in self._entries.values()
                    if check.matches(e, hold) and e.counts(since, now)
                ]
                spent = Charge(sum(e.cost_nano for e in counted), sum(e.tokens for e in counted))
                if check.refuses(spent, hold.charge):
                    return Refusal(check, spent)
            self._entries[hold.id] = hold
            return None

    async def settle(self, hold_id: str, who: Who, actual: Charge | None, now: float) -> None:
        """See ``SpendStore.settle``."""
        with self._lock:
            entry = self._entries.pop(hold_id, None)
            if entry is None or actual is None:
                return
            self._entries[hold_id] = replace(
                entry,
                cost_nano=actual.cost_nano,
                tokens=actual.tokens,
                state="charged",
                expires_at=None,
            )

    async def entries(self, app: str | None, since: float) -> list[SpendEntry]:
        """See ``SpendStore.entries``."""
        with self._lock:
            return [
                e
                for e in self._entries.values()
                if e.state == "charged" and e.at > since and (app is None or e.app == app)
            ]

    def _prune(self, now: float) -> None:
        cutoff = now - self._retention
        stale = [key for key, e in self._entries.items() if e.at <= cutoff]
        for key in stale:
            del self._entries[key]
