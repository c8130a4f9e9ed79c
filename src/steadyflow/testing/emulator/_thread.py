"""Run an async server from synchronous code, on its own loop in a daemon thread.

Scripts, the command line and sync tests use the emulator without an event
loop of their own; the server then lives on a private loop in a background
thread, started and stopped by a context manager.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable, Generator
from typing import Any

__all__ = ["run_in_thread"]


@contextlib.contextmanager
def run_in_thread(
    start: Callable[[], Awaitable[Any]], stop: Callable[[], Awaitable[None]]
) -> Generator[asyncio.AbstractEventLoop, None, None]:
    """Run ``start()`` on a fresh loop in a thread; on exit run ``stop()`` and join.

    Errors raised by ``start()`` are re-raised in the calling thread.
    """
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    failure: list[BaseException] = []

    def serve() -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(start())
        except BaseException as exc:
            failure.append(exc)
            ready.set()
            loop.close()
            return
        ready.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(stop())
            loop.close()

    thread = threading.Thread(target=serve, name="steadyflow-emulator", daemon=True)
    thread.start()
    ready.wait()
    if failure:
        thread.join()
        raise failure[0]
    try:
        yield loop
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
