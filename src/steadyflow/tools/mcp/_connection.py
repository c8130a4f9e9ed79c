"""One live MCP session, held open by a background task.

The SDK's transports and ``ClientSession`` are async context managers built
on task groups: they must be entered and left by the same task. A session
used by many tool calls (each in its own task) and closed by
``runner.close()`` (yet another task) therefore lives in a task of its own,
which opens it, waits to be told to close, and closes it. Calls go through
the session from any task on the same event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from mcp.client.session import ClientSession, IncomingMessage
from mcp.types import ToolListChangedNotification

__all__ = ["McpConnection", "OpenTransport"]

logger = logging.getLogger("steadyflow.tools.mcp")

OpenTransport = Callable[[], AbstractAsyncContextManager[tuple[Any, Any]]]


class McpConnection:
    """A session on one event loop; ``alive`` turns False when it drops or closes."""

    def __init__(self, open_transport: OpenTransport, on_list_changed: Callable[[], None]) -> None:
        self._open_transport = open_transport
        self._on_list_changed = on_list_changed
        self._closing = asyncio.Event()
        self._ready: asyncio.Future[ClientSession] = asyncio.get_running_loop().create_future()
        self._task: asyncio.Task[None] | None = None
        self.alive = False

    async def open(self) -> ClientSession:
        """Start the session task; the initialized session (the open error, if it failed)."""
        self._task = asyncio.create_task(self._hold(), name="steadyflow-mcp-session")
        session = await self._ready
        self.alive = True
        return session

    @property
    def session(self) -> ClientSession:
        """The initialized session (only after ``open``)."""
        return self._ready.result()

    async def close(self) -> None:
        """Close the session and its transport (stops a stdio server); safe to repeat."""
        self.alive = False
        self._closing.set()
        if self._task is not None:
            with contextlib.suppress(Exception):  # a dropped session's close error is moot
                await self._task

    async def _hold(self) -> None:
        try:
            async with self._session() as session:
                self._ready.set_result(session)
                await self._closing.wait()
        except Exception as error:  # reported to the opener, or logged once open
            if not self._ready.done():
                self._ready.set_exception(error)
            else:
                logger.debug("MCP session ended: %s", error)
        finally:
            self.alive = False
            if not self._ready.done():
                self._ready.set_exception(ConnectionError("MCP session closed while opening"))

    @contextlib.asynccontextmanager
    async def _session(self) -> AsyncGenerator[ClientSession, None]:
        async with (
            self._open_transport() as (read, write),
            ClientSession(read, write, message_handler=self._on_message) as session,
        ):
            await session.initialize()
            yield session

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, ToolListChangedNotification):
            self._on_list_changed()
        elif isinstance(message, Exception):
            logger.debug("MCP transport reported %s: %s", type(message).__name__, message)
