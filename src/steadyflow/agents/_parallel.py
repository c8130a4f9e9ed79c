"""Interleaving the events of agents that run at once (``ParallelAgent``).

Each branch runs in its own task and hands its events over one at a time:
it waits until the consumer took the event (the runner stores it before it
asks for the next), so a branch's next model call sees its own earlier
events, and a slow consumer holds every branch back instead of letting
events pile up. The first branch to fail cancels the others; its error
propagates once they have stopped. A consumer that stops early cancels them
all the same.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

from .._aio import aclose
from ..context import AgentNode, InvocationContext
from ..events import Event

__all__ = ["merge_branches"]


@dataclass
class _Produced:
    """One event from a branch, and the signal that the consumer took it."""

    event: Event
    taken: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass(frozen=True)
class _Finished:
    """A branch ended: normally (``error`` None) or with ``error``."""

    error: Exception | None = None


Run = Callable[[AgentNode, InvocationContext], AsyncIterator[Event]]
"""How a branch's agent is run (``workflow._enter``: afresh, or what a resume left)."""


async def _drive(events: AsyncIterator[Event], out: asyncio.Queue[_Produced | _Finished]) -> None:
    try:
        async for event in events:
            produced = _Produced(event)
            await out.put(produced)
            await produced.taken.wait()
    except Exception as error:  # handed to the consumer, which re-raises it
        await out.put(_Finished(error))
        return
    except BaseException:
        out.put_nowait(_Finished())  # cancelled: the consumer must not wait for this branch
        raise
    finally:
        await aclose(events)
    await out.put(_Finished())


async def merge_branches(
    branches: Sequence[tuple[AgentNode, InvocationContext]], run: Run
) -> AsyncIterator[Event]:
    """The events of every ``(agent, context)`` branch run by ``run``, in the order they come."""
    queue: asyncio.Queue[_Produced | _Finished] = asyncio.Queue()
    tasks = [asyncio.create_task(_drive(run(agent, ctx), queue)) for agent, ctx in branches]
    running = len(tasks)
    try:
        while running:
            item = await queue.get()
            if isinstance(item, _Finished):
                running -= 1
                if item.error is not None:
                    raise item.error
                continue
            yield item.event
            item.taken.set()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
