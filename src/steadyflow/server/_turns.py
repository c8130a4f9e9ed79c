"""Turns as tasks the server owns: started, cancelled on disconnect, awaited on shutdown.

Every turn runs in a task registered here, so the server always knows what
is still running: a client that goes away cancels its turn and the handler
waits until the task has finished unwinding (no orphan keeps calling the
model), and shutdown cancels whatever is left.

Cancelling a turn never cuts a session write in half. The runner writes
through ``WriteThroughService``, which lets an append that has started run
to its end (commit and the in-memory copy both) before the cancellation is
delivered: the stored session is always a whole prefix of the turn.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any, TypeVar

from ..durable import SHUTTING_DOWN
from ..events import Event
from ..sessions.base import BaseSessionService, Session
from ..sessions.invocations import InvocationRecord, UnfinishedInvocations

__all__ = ["ClientGoneError", "TurnRegistry", "WriteThroughService", "run_until_disconnect"]

T = TypeVar("T")


class ClientGoneError(Exception):
    """The client disconnected before its turn finished; the turn was cancelled."""


class TurnRegistry:
    """The turns running in this process."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._idle = asyncio.Event()
        self._idle.set()

    @property
    def active(self) -> int:
        """How many turns are running."""
        return len(self._tasks)

    def start(self, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """Run ``coro`` as a registered task."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        self._idle.clear()
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not self._tasks:
            self._idle.set()

    async def wait_idle(self) -> None:
        """Return once no turn is running."""
        await self._idle.wait()

    async def cancel_all(self) -> None:
        """Cancel every running turn (the server stops) and wait for them to finish unwinding.

        The turns end ``INTERRUPTED`` (``SHUTTING_DOWN``), not ``CANCELLED``:
        the next server to start, or ``steadyflow resume``, continues them.
        """
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel(SHUTTING_DOWN)
        await asyncio.gather(*tasks, return_exceptions=True)


async def _await_disconnect(receive: Any) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def run_until_disconnect(task: asyncio.Task[T], receive: Any) -> T:
    """``task``'s result, unless the client disconnects first.

    Call once the request body has been read (``receive`` then yields only
    ``http.disconnect``).

    Raises:
        ClientGoneError: the client went away; ``task`` was cancelled and has
            finished unwinding.
    """
    watcher = asyncio.ensure_future(_await_disconnect(receive))
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
    if task.cancelled():
        raise ClientGoneError("the client disconnected; its turn was cancelled")
    return task.result()


class WriteThroughService(BaseSessionService):
    """Wraps a session store so a cancelled turn finishes the append it started."""

    def __init__(self, inner: BaseSessionService) -> None:
        self.inner = inner

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        """See ``BaseSessionService.create_session``."""
        return await self.inner.create_session(
            app_name=app_name, user_id=user_id, state=state, session_id=session_id
        )

    async def get_session(self, *, app_name: str, user_id: str, session_id: str) -> Session | None:
        """See ``BaseSessionService.get_session``."""
        return await self.inner.get_session(
            app_name=app_name, user_id=user_id, session_id=session_id
        )

    async def list_sessions(self, *, app_name: str, user_id: str | None = None) -> list[Session]:
        """See ``BaseSessionService.list_sessions``."""
        return await self.inner.list_sessions(app_name=app_name, user_id=user_id)

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        """See ``BaseSessionService.delete_session``."""
        await self.inner.delete_session(app_name=app_name, user_id=user_id, session_id=session_id)

    async def append_event(self, session: Session, event: Event) -> Event:
        """Append through the inner store; a cancellation waits for the append to end."""
        return await _write_through(self.inner.append_event(session, event))

    async def append_event_and_record(
        self, session: Session, event: Event, record: InvocationRecord
    ) -> Event:
        """Both writes through the inner store; a cancellation waits for them to end."""
        return await _write_through(self.inner.append_event_and_record(session, event, record))

    async def create_invocation(self, record: InvocationRecord) -> None:
        """See ``BaseSessionService.create_invocation``."""
        await _write_through(self.inner.create_invocation(record))

    async def update_invocation(self, record: InvocationRecord) -> None:
        """See ``BaseSessionService.update_invocation``."""
        await _write_through(self.inner.update_invocation(record))

    async def get_invocation(
        self, *, app_name: str, user_id: str, session_id: str, invocation_id: str
    ) -> InvocationRecord | None:
        """See ``BaseSessionService.get_invocation``."""
        return await self.inner.get_invocation(
            app_name=app_name, user_id=user_id, session_id=session_id, invocation_id=invocation_id
        )

    async def list_invocations(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> list[InvocationRecord]:
        """See ``BaseSessionService.list_invocations``."""
        return await self.inner.list_invocations(
            app_name=app_name, user_id=user_id, session_id=session_id
        )

    async def find_unfinished_invocations(self, *, app_name: str) -> UnfinishedInvocations:
        """See ``BaseSessionService.find_unfinished_invocations``."""
        return await self.inner.find_unfinished_invocations(app_name=app_name)

    async def close(self) -> None:
        """Close the inner store."""
        await self.inner.close()


async def _write_through(coro: Coroutine[Any, Any, T]) -> T:
    """``coro``'s result; a cancellation arriving meanwhile waits for it to finish first."""
    write = asyncio.ensure_future(coro)
    try:
        return await asyncio.shield(write)
    except asyncio.CancelledError:
        await asyncio.wait({write})
        if not write.cancelled():
            write.exception()  # retrieved: the cancellation is what the caller sees
        raise
