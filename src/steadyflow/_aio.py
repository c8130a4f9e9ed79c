"""Closing async iterators at once, so a caller that stops early stops everything under it.

An ``async for`` that is left early (``break``, an error, the caller's
``aclose()``) does not close the generator it was reading: that waits for
garbage collection, and a provider stream left open keeps generating and
billing. Every layer that reads a generator closes it in a ``finally`` with
``aclose``, so closing the outermost one closes them all, innermost first,
before the outer layer's own cleanup (the runner closing the invocation's record) runs.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

__all__ = ["aclose"]


async def aclose(iterator: AsyncIterator[object]) -> None:
    """Close ``iterator`` now when it can be closed (an async generator); else do nothing.

    Closing a generator that already finished costs nothing.
    """
    close = getattr(iterator, "aclose", None)
    if close is not None:
        await close()
