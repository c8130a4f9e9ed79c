"""The SQL store's cache of loaded events, so a long session is not re-read every turn.

A turn loads its session once (``get_session``) and appends a few events.
Without a cache, each load of a 3,000-event session re-reads and re-parses
3,000 rows. With it, a load asks the database only for the session row
(revision, incarnation, state) and the events after the cached revision,
usually none.

Entries are checked, never trusted: an entry is used only when its
incarnation matches the database's (the session was not deleted and
re-created) and its revision is not ahead of the database's. Stored events
are immutable, so events up to a revision never change once committed.
The cache is bounded by a total number of events, least recently used
sessions evicted first.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from ...events import Event

__all__ = ["CachedEvents", "EventCache", "SessionKey"]

SessionKey = tuple[str, str, str]
"""(app_name, user_id, session_id)."""


@dataclass
class CachedEvents:
    """The first ``revision`` events of one incarnation of a session."""

    incarnation: str
    revision: int
    events: list[Event]


class EventCache:
    """Least-recently-used cache of session events, bounded by total events."""

    def __init__(self, max_events: int) -> None:
        if max_events < 0:
            raise ValueError(f"cache_max_events must be >= 0, got {max_events}")
        self._max_events = max_events
        self._entries: OrderedDict[SessionKey, CachedEvents] = OrderedDict()
        self._size = 0

    def lookup(self, key: SessionKey, incarnation: str, revision: int) -> CachedEvents | None:
        """The entry for ``key`` if it is a prefix of that incarnation at ``revision``."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry.incarnation != incarnation or entry.revision > revision:
            self.drop(key)
            return None
        self._entries.move_to_end(key)
        return entry

    def store(self, key: SessionKey, incarnation: str, events: list[Event]) -> None:
        """Remember ``events`` (a session's first ``len(events)`` events)."""
        self.drop(key)
        if len(events) > self._max_events:
            return
        self._entries[key] = CachedEvents(incarnation, len(events), events)
        self._size += len(events)
        self._evict()

    def extend(self, key: SessionKey, incarnation: str, revision: int, event: Event) -> None:
        """Add the event stored at ``revision + 1``, if the entry is at ``revision``."""
        entry = self._entries.get(key)
        if entry is None or entry.incarnation != incarnation or entry.revision != revision:
            return
        entry.events.append(event)
        entry.revision += 1
        self._size += 1
        self._entries.move_to_end(key)
        self._evict()

    def drop(self, key: SessionKey) -> None:
        """Forget ``key``."""
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._size -= len(entry.events)

    def _evict(self) -> None:
        while self._size > self._max_events and self._entries:
            _, oldest = self._entries.popitem(last=False)
            self._size -= len(oldest.events)
