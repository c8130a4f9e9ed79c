"""An asyncio event loop whose clock jumps to the next timer instead of waiting.

``loop.time()`` is a virtual clock. When no callback is ready, the selector
(polled without blocking) moves that clock forward by the time to the next
scheduled timer, so ``asyncio.sleep(30)`` returns at once with 30 virtual
seconds passed, and concurrent sleepers wake in the right order. A loop with
nothing ready and nothing scheduled would wait forever in real life; here
it raises ``SimulationStalledError``. Real I/O must not be awaited on it.
"""

from __future__ import annotations

import asyncio
import selectors
from typing import Any

__all__ = ["LoopClock", "SimulationStalledError", "VirtualTimeLoop"]


class SimulationStalledError(RuntimeError):
    """Every task is waiting on something that no timer will ever wake."""


class _Now:
    def __init__(self) -> None:
        self.value = 0.0


class _JumpingSelector(selectors.DefaultSelector):
    def __init__(self, now: _Now) -> None:
        super().__init__()
        self._now = now

    def select(self, timeout: float | None = None) -> list[Any]:
        ready: list[Any] = super().select(0)
        if ready or timeout == 0:
            return ready
        if timeout is None:
            raise SimulationStalledError("nothing is scheduled and nothing is ready")
        self._now.value += timeout
        return []


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """A selector loop on virtual time, starting at 0.0."""

    def __init__(self) -> None:
        self._now = _Now()
        super().__init__(selector=_JumpingSelector(self._now))

    def time(self) -> float:
        """The virtual time in seconds."""
        return self._now.value


class LoopClock:
    """The retry ``Clock`` protocol on the running loop's (virtual) time."""

    def monotonic(self) -> float:
        """The running loop's time."""
        return asyncio.get_running_loop().time()

    async def sleep(self, seconds: float) -> None:
        """Sleep on the running loop (a jump in virtual time)."""
        await asyncio.sleep(seconds)
