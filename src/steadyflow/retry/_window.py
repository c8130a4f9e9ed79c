"""A pair of counters over a sliding time window, kept in fixed buckets.

The adaptive throttle counts requests and accepts over the last two minutes;
the circuit breaker counts calls and failures over its window. Both need
"how many in the last ``window`` seconds" without storing one timestamp per
call, so time is cut into ``BUCKETS`` buckets of ``window / BUCKETS`` seconds
and the window slides a bucket at a time. The Redis scripts keep the same
buckets, so a fleet sees exactly what one process would.
"""

from __future__ import annotations

import math
from collections import deque

__all__ = ["BUCKETS", "SlidingCounts", "bucket_index"]

BUCKETS = 12


def bucket_index(now: float, window: float) -> int:
    """The bucket ``now`` falls in, for a window of ``window`` seconds."""
    return math.floor(now * BUCKETS / window)


class SlidingCounts:
    """Two counts (``total`` and ``hits``) over the last ``window`` seconds.

    A count stays in the window while its bucket is one of the newest
    ``BUCKETS``: it leaves between ``window * (1 - 1/BUCKETS)`` and
    ``window`` seconds after it was added.
    """

    __slots__ = ("_buckets", "window")

    def __init__(self, window: float) -> None:
        self.window = window
        # (bucket index, total, hits), oldest first.
        self._buckets: deque[list[int]] = deque()

    def add(self, now: float, total: int, hits: int) -> None:
        """Count ``total`` events, ``hits`` of them of interest, at time ``now``."""
        index = bucket_index(now, self.window)
        self._expire(index)
        if self._buckets and self._buckets[-1][0] >= index:
            newest = self._buckets[-1]
            newest[1] += total
            newest[2] += hits
        else:
            self._buckets.append([index, total, hits])

    def totals(self, now: float) -> tuple[int, int]:
        """``(total, hits)`` within the window ending at ``now``."""
        self._expire(bucket_index(now, self.window))
        return sum(b[1] for b in self._buckets), sum(b[2] for b in self._buckets)

    def clear(self) -> None:
        """Forget every count."""
        self._buckets.clear()

    def _expire(self, index: int) -> None:
        while self._buckets and self._buckets[0][0] <= index - BUCKETS:
            self._buckets.popleft()
