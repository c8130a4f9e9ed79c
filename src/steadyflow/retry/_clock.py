"""The one clock the retry loop reads and sleeps on, swappable for tests.

All waiting between attempts goes through ``current_clock().sleep``, so a
test (or ``steadyflow.testing.set_testing``) can install a clock that records
the delays instead of sleeping them. The process-wide switch is a plain
module global, like stamina's ``set_testing``: it must work from sync pytest
fixtures, which a ``ContextVar`` set there would not reach.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol, runtime_checkable

__all__ = ["Clock", "SystemClock", "current_clock", "set_clock"]


@runtime_checkable
class Clock(Protocol):
    """What the retry loop needs from time: a monotonic reading and a sleep."""

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin; only differences matter."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds``; cancelling the awaiting task must cancel the wait."""
        ...


class SystemClock:
    """The real clock: ``time.monotonic`` and ``asyncio.sleep``."""

    monotonic = staticmethod(time.monotonic)
    """Seconds from ``time.monotonic``: the function itself, read on every model call
    (a method around it would add a Python frame to each)."""

    async def sleep(self, seconds: float) -> None:
        """Sleep through asyncio, so cancellation interrupts the wait at once."""
        await asyncio.sleep(seconds)

    def __repr__(self) -> str:
        return "SystemClock()"


_SYSTEM_CLOCK = SystemClock()
_clock: Clock = _SYSTEM_CLOCK


def current_clock() -> Clock:
    """The clock retry loops use when none is passed explicitly."""
    return _clock


def set_clock(clock: Clock | None) -> Clock:
    """Install ``clock`` process-wide (``None`` restores the real one).

    Returns:
        The clock that was installed before, so callers can restore it.
    """
    global _clock
    if clock is not None and not isinstance(clock, Clock):
        raise ValueError(f"clock must have monotonic() and async sleep(), got {clock!r}")
    previous = _clock
    _clock = _SYSTEM_CLOCK if clock is None else clock
    return previous
