"""``LeaseRenewer``: one task per event loop keeps the leases of the invocations on it.

A running invocation's lease is pushed forward by every write of its record
(each stored event is one), so only an invocation that has been quiet for a
while (a long model call, a slow tool) needs a write of its own. One task
per event loop serves every invocation running there: it wakes every
``interval`` seconds and renews the leases of those quiet for at least half
of it, so a lease is renewed at most 1.5 intervals after its last write
(the runner's interval is a third of the lease: renewed by half of it).

The task ends as soon as it has nothing to renew: discarding the last
invocation of a loop cancels it while it sleeps (a renewal under way is let
finish, and the task then ends by itself), so a finished or cancelled turn
leaves no task behind and a script's or a test's event loop closes clean.
The next invocation on that loop starts a new task.

An invocation therefore costs no task of its own. A task per invocation
(created, cancelled and awaited around every turn) was about a third of a
one-step turn's CPU time in the per-call benchmark.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["LeaseRenewer", "Renewable"]


class Renewable(Protocol):
    """What the renewer needs of an invocation's record keeper."""

    @property
    def written_at(self) -> float:
        """When the record was last written (the renewer's clock)."""
        ...

    async def renew(self) -> bool:
        """Push the lease forward; False when it must not be renewed again."""
        ...


@dataclass(eq=False)
class _OnLoop:
    keepers: set[Renewable] = field(default_factory=lambda: set[Renewable]())
    task: asyncio.Task[None] | None = None
    renewing: bool = False  # a renewal is under way: the task must not be cancelled now


class LeaseRenewer:
    """Renews the leases of the invocations added to it; see the module docstring.

    Args:
        interval: seconds between two wakes.
        clock: wall-clock seconds (injectable for tests).
        sleep: how the task waits (injectable for tests).
    """

    def __init__(
        self,
        interval: float,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.interval = interval
        self._clock, self._sleep = clock, sleep
        self._loops: dict[asyncio.AbstractEventLoop, _OnLoop] = {}

    def add(self, keeper: Renewable) -> None:
        """Keep ``keeper``'s lease until ``discard``; starts this loop's task if needed."""
        loop = asyncio.get_running_loop()
        on_loop = self._loops.get(loop)
        if on_loop is None:
            on_loop = self._loops[loop] = _OnLoop()
        on_loop.keepers.add(keeper)
        if on_loop.task is None:
            on_loop.task = loop.create_task(self._run(loop, on_loop))

    def discard(self, keeper: Renewable) -> None:
        """Stop renewing ``keeper``'s lease; the loop's task ends with its last keeper."""
        loop = asyncio.get_running_loop()
        on_loop = self._loops.get(loop)
        if on_loop is None:
            return
        on_loop.keepers.discard(keeper)
        if not on_loop.keepers and on_loop.task is not None and not on_loop.renewing:
            del self._loops[loop]  # a keeper added from now on starts a new task
            on_loop.task.cancel()  # it sleeps: nothing is cut short

    def task(self) -> asyncio.Task[None] | None:
        """The running loop's renewal task, if one runs (for tests and shutdown)."""
        on_loop = self._loops.get(asyncio.get_running_loop())
        return None if on_loop is None else on_loop.task

    async def stop(self) -> None:
        """End the running loop's task (the runner is closing)."""
        task = self.task()
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def _run(self, loop: asyncio.AbstractEventLoop, on_loop: _OnLoop) -> None:
        try:
            while on_loop.keepers:
                await self._sleep(self.interval)
                quiet_since = self._clock() - self.interval / 2
                for keeper in [k for k in on_loop.keepers if k.written_at <= quiet_since]:
                    if keeper not in on_loop.keepers:
                        continue
                    on_loop.renewing = True
                    try:
                        renewed = await keeper.renew()
                    finally:
                        on_loop.renewing = False
                    if not renewed:
                        on_loop.keepers.discard(keeper)
        finally:
            if self._loops.get(loop) is on_loop:
                del self._loops[loop]
