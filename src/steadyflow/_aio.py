"""Closing async iterators at once, so a caller that stops early stops everything under it.

An ``async for`` that is left early (``break``, an error, the caller's
``aclose()``) does not close the generator it was reading: that waits for
garbage collection, and a provider stream left open keeps generating and
billing. Every layer that reads a generator closes it in a ``finally`` with
``aclose``, so closing the outermost one closes them all, innermost first,
before the outer layer's own cleanup (the runner closing the invocation's record) runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator
from typing import TypeVar, cast

__all__ = ["aclose", "iterate_sync"]

T = TypeVar("T")


async def aclose(iterator: AsyncIterator[object]) -> None:
    """Close ``iterator`` now when it can be closed (an async generator); else do nothing.

    Closing a generator that already finished costs nothing.
    """
    close = getattr(iterator, "aclose", None)
    if close is not None:
        await close()


def iterate_sync(
    items: AsyncIterator[T], name: str, on_exit: Callable[[], Awaitable[None]]
) -> Iterator[T]:
    """``items`` read one at a time on a private event loop (``Runner.run`` and ``resume``).

    Raises:
        RuntimeError: called from a running event loop (use ``{name}_async``).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError(
            f"Runner.{name} cannot be called from a running event loop; use {name}_async"
        )
    assert isinstance(items, AsyncGenerator)
    return _drive(cast("AsyncGenerator[T, None]", items), on_exit)


def _drive(items: AsyncGenerator[T, None], on_exit: Callable[[], Awaitable[None]]) -> Iterator[T]:
    async def next_item() -> T:
        return await anext(items)

    async def finish() -> None:
        await on_exit()

    with asyncio.Runner() as loop:
        try:
            while True:
                try:
                    yield loop.run(next_item())
                except StopAsyncIteration:
                    return
        finally:
            loop.run(items.aclose())
            # Connections belong to this loop: close them before it ends.
            loop.run(finish())
