"""A clock that never waits, and the switch that makes retries use it.

Like stamina's ``set_testing``: turn it on and retry waits return at once,
while every delay that would have been slept is recorded, so tests assert
exact delays with zero real sleeping::

    with fake_clock() as clock:
        ...  # run the agent
    assert clock.sleeps == [0.5, 1.0]
"""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from contextlib import contextmanager

from ..retry._clock import current_clock, set_clock

__all__ = ["FakeClock", "fake_clock", "is_testing", "set_testing"]


class FakeClock:
    """A ``Clock`` whose time moves only when told: by ``sleep`` or ``advance``.

    Attributes:
        now: the current reading of ``monotonic()``.
        sleeps: every delay passed to ``sleep``, in order.
    """

    def __init__(self, start: float = 0.0) -> None:
        self.now = float(start)
        self.sleeps: list[float] = []

    def __repr__(self) -> str:
        return f"FakeClock(now={self.now!r}, sleeps={self.sleeps!r})"

    def monotonic(self) -> float:
        """The fake time."""
        return self.now

    async def sleep(self, seconds: float) -> None:
        """Record ``seconds`` and move time forward without waiting.

        Still yields to the event loop once, so a cancelled task stops here
        just as it would in a real wait.
        """
        if seconds < 0:
            raise ValueError(f"cannot sleep a negative delay: {seconds!r}")
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass, e.g. to model a slow provider attempt."""
        if seconds < 0:
            raise ValueError(f"time cannot go backwards: advance({seconds!r})")
        self.now += seconds

    @property
    def total_slept(self) -> float:
        """Sum of all recorded sleeps."""
        return sum(self.sleeps)


def set_testing(testing: bool = True) -> FakeClock | None:
    """Turn the no-wait testing clock on (or off) for the whole process.

    Returns:
        The newly installed ``FakeClock`` when turning on, else ``None``.
    """
    if not testing:
        set_clock(None)
        return None
    clock = FakeClock()
    set_clock(clock)
    return clock


def is_testing() -> bool:
    """True while a ``FakeClock`` is the retry clock."""
    return isinstance(current_clock(), FakeClock)


@contextmanager
def fake_clock(start: float = 0.0) -> Generator[FakeClock, None, None]:
    """Install a fresh ``FakeClock`` for the block, then restore the previous clock."""
    clock = FakeClock(start)
    previous = set_clock(clock)
    try:
        yield clock
    finally:
        set_clock(previous)
