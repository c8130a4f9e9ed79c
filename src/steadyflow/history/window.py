"""Choosing which history entries a request replays, in time proportional to the window.

An *entry* is one event as an agent sees it (one message of the request).
``HistoryIndex`` is fed entries as they are appended to the session and
answers one question per step: from which entry on must the request start
to stay under a cap? The answer follows three rules, in this order:

1. the current turn (the latest user entry and everything after it) is
   always sent, even when it alone is over the cap;
2. a function call is never sent without its responses, nor a response
   without its call: when the window starts between them, the older half
   (and, transitively, whatever shares a call id with it) is *pinned*: sent
   ahead of the window, in session order;
3. within those, the window is the longest suffix whose cost, pins
   included, fits the cap.

Costs are counted in events or in tokens (kept as prefix sums), so finding
the cut is a bisection and checking it scans only the window: a step's cost
does not grow with the length of the session.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["HistoryIndex", "Window"]


@dataclass(frozen=True)
class Window:
    """The entries one request replays.

    Attributes:
        start: entries from this index on are sent.
        pinned: entries before ``start`` sent anyway (call/response halves).
        events: how many entries are sent.
        tokens: their token cost.
    """

    start: int
    pinned: tuple[int, ...]
    events: int
    tokens: int


class HistoryIndex:
    """Entries' costs, call/response links and the current turn, grown one entry at a time."""

    def __init__(self) -> None:
        self._token_prefix: list[int] = [0]
        self._keys: list[tuple[str, ...]] = []
        self._earliest_link: list[int] = []
        self._entries_by_key: dict[str, list[int]] = {}
        self._open_anonymous: dict[str, str] = {}
        self._linked: list[int] = []  # entries carrying calls or responses, ascending
        self._last_user = -1

    def __len__(self) -> int:
        return len(self._keys)

    def add(
        self,
        *,
        tokens: int,
        is_user: bool,
        call_ids: Sequence[tuple[str | None, str]] = (),
        response_ids: Sequence[tuple[str | None, str]] = (),
    ) -> int:
        """Record the next entry and return its index.

        Args:
            tokens: the entry's token cost.
            is_user: the entry is a user message (it starts the current turn).
            call_ids: ``(id, name)`` of the function calls it carries.
            response_ids: ``(id, name)`` of the function responses it carries.
                Without ids, a response pairs with the latest id-less call of
                the same name.
        """
        index = len(self._keys)
        self._token_prefix.append(self._token_prefix[-1] + tokens)
        if is_user:
            self._last_user = index
        if not call_ids and not response_ids:
            self._keys.append(())
            self._earliest_link.append(index)
            return index
        self._linked.append(index)
        keys: list[str] = []
        for call_id, name in call_ids:
            if call_id:
                keys.append(call_id)
            else:
                key = f"?{name}#{index}"
                self._open_anonymous[name] = key
                keys.append(key)
        for response_id, name in response_ids:
            linked_key = response_id or self._open_anonymous.get(name)
            if linked_key:
                keys.append(linked_key)
        earliest = index
        for key in dict.fromkeys(keys):
            linked = self._entries_by_key.setdefault(key, [])
            if linked:
                earliest = min(earliest, linked[0])
            linked.append(index)
        self._keys.append(tuple(dict.fromkeys(keys)))
        self._earliest_link.append(earliest)
        return index

    def tokens(self, start: int, end: int | None = None) -> int:
        """Token cost of entries ``start`` up to ``end`` (default: the last)."""
        stop = len(self._keys) if end is None else end
        return self._token_prefix[stop] - self._token_prefix[start]

    @property
    def turn_start(self) -> int:
        """Index of the latest user entry (the newest entry when there is none)."""
        if self._last_user >= 0:
            return self._last_user
        return max(len(self._keys) - 1, 0)

    def window(self, start: int) -> Window:
        """The entries sent when the request starts at ``start``, pins included."""
        end = len(self._keys)
        pinned: set[int] = set()
        first = bisect.bisect_left(self._linked, start)
        frontier = [j for j in self._linked[first:] if self._earliest_link[j] < start]
        while frontier:
            entry = frontier.pop()
            for key in self._keys[entry]:
                for other in self._entries_by_key[key]:
                    if other < start and other not in pinned:
                        pinned.add(other)
                        frontier.append(other)
        pins = tuple(sorted(pinned))
        tokens = self.tokens(start) + sum(self.tokens(i, i + 1) for i in pins)
        return Window(start, pins, end - start + len(pins), tokens)

    def fit(self, cap: int, *, by_tokens: bool, floor: int = 0, reserved: int = 0) -> Window:
        """The largest window under ``cap`` that starts at or after ``floor``.

        Args:
            cap: the budget, in entries or tokens.
            by_tokens: count tokens instead of entries.
            floor: entries before it are never in the window (a summary
                covers them); they may still be pinned.
            reserved: cost already spent (a summary sent ahead of the window).

        The window never starts after the current turn; when even that is
        over the cap, the current turn (with its pins) is the window.
        """
        end = len(self._keys)
        limit = max(floor, min(self.turn_start, end))

        def cost(window: Window) -> int:
            return reserved + (window.tokens if by_tokens else window.events)

        low = max(floor, self.first_fitting(cap - reserved, by_tokens=by_tokens))
        if low >= limit:
            return self.window(limit)
        candidate = self.window(low)
        if cost(candidate) <= cap:
            return candidate
        best = self.window(limit)
        if cost(best) > cap:
            return best
        # window(limit) fits, window(low) does not, and cost only falls as the start rises.
        high = limit
        while high - low > 1:
            middle = (low + high) // 2
            candidate = self.window(middle)
            if cost(candidate) <= cap:
                high, best = middle, candidate
            else:
                low = middle
        return best

    def first_fitting(self, room: int, *, by_tokens: bool, end: int | None = None) -> int:
        """The smallest start whose entries up to ``end`` (pins aside) fit in ``room``."""
        end = len(self._keys) if end is None else end
        if room <= 0:
            return end
        if not by_tokens:
            return max(end - room, 0)
        total = self._token_prefix[end]
        # smallest start with total - prefix[start] <= room
        return bisect.bisect_left(self._token_prefix, total - room, 0, end + 1)
