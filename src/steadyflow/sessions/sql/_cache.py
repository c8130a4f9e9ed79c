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
The cache is bounded twice, least recently used sessions evicted first: by
a total number of events, and by their total size in bytes (each event
counted at the size of its stored JSON), so a server holding large messages
stays within a known amount of memory (default 64 MiB; the parsed objects
take a small multiple of their JSON).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from ...events import Event
from ._key import SessionKey

__all__ = ["DEFAULT_CACHE_MAX_BYTES", "CachedEvents", "EventCache"]

DEFAULT_CACHE_MAX_BYTES = 64 * 1024 * 1024
"""The SQL store's default event cache bound: 64 MiB of stored JSON."""


@dataclass
class CachedEvents:
    """The first ``revision`` events of one incarnation of a session, ``size`` bytes of JSON."""

    incarnation: str
    revision: int
    events: list[Event]
    size: int = 0


class EventCache:
    """Least-recently-used cache of session events, bounded by total events and total bytes."""

    def __init__(self, max_events: int, max_bytes: int = DEFAULT_CACHE_MAX_BYTES) -> None:
        if max_events < 0:
            raise ValueError(f"cache_max_events must be >= 0, got {max_events}")
        if max_bytes < 0:
            raise ValueError(f"cache_max_bytes must be >= 0, got {max_bytes}")
        self._max_events = max_events
        self._max_bytes = max_bytes
        self._entries: OrderedDict[SessionKey, CachedEvents] = OrderedDict()
        self._count = 0
        self._bytes = 0

    @property
    def size(self) -> tuple[int, int]:
        """What the cache holds now: (events, bytes)."""
        return self._count, self._bytes

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

    def store(self, key: SessionKey, incarnation: str, events: list[Event], size: int = 0) -> None:
        """Remember ``events`` (a session's first ``len(events)`` events, ``size`` bytes)."""
        self.drop(key)
        if len(events) > self._max_events or size > self._max_bytes:
            return
        self._entries[key] = CachedEvents(incarnation, len(events), events, size)
        self._count += len(events)
        self._bytes += size
        self._evict()

    def extend(
        self, key: SessionKey, incarnation: str, revision: int, event: Event, size: int = 0
    ) -> None:
        """Add the event stored at ``revision + 1`` (``size`` bytes) to an entry at ``revision``."""
        entry = self._entries.get(key)
        if entry is None or entry.incarnation != incarnation or entry.revision != revision:
            return
        entry.events.append(event)
        entry.revision += 1
        entry.size += size
        self._count += 1
        self._bytes += size
        self._entries.move_to_end(key)
        self._evict()

    def drop(self, key: SessionKey) -> None:
        """Forget ``key``."""
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._count -= len(entry.events)
            self._bytes -= entry.size

    def _evict(self) -> None:
        while (self._count > self._max_events or self._bytes > self._max_bytes) and self._entries:
            _, oldest = self._entries.popitem(last=False)
            self._count -= len(oldest.events)
            self._bytes -= oldest.size
