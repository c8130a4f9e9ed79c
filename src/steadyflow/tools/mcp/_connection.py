"""One live MCP session, held open by a background task.

The SDK's transports and ``ClientSession`` are async context managers built
on task groups: they must be entered and left by the same task. A session
used by many tool calls (each in its own task) and closed by
``runner.close()`` (yet another task) therefore lives in a task of its own,
which opens it, waits to be told to close, and closes it. Calls go through
the session from any task on the same event loop.

Opening is bounded by its caller, and an opening that is abandoned (a
timeout, a cancelled turn) closes the half-open session at once: its task
is cancelled through an anyio cancel scope, so the transport's shielded
shutdown still runs and a stdio server's process is reaped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Callable

import anyio
from mcp.client.session import ClientSession, IncomingMessage
from mcp.types import ToolListChangedNotification

from ._screen import ScreenedReads
from ._transports import McpTransport

__all__ = ["McpConnection"]

logger = logging.getLogger("steadyflow.tools.mcp")


class McpConnection:
    """A session on one event loop; ``alive`` turns False when it drops or closes.

    Args:
        transport: how to reach the server (one connection per ``McpConnection``).
        server: the server's name, in warnings.
        on_list_changed: called when the server says its tool list changed.
    """

    def __init__(
        self, transport: McpTransport, server: str, on_list_changed: Callable[[], None]
    ) -> None:
        self.transport = transport
        self._server = server
        self._on_list_changed = on_list_changed
        self._closing = asyncio.Event()
        self._scope = anyio.CancelScope()
        self._ready: asyncio.Future[ClientSession] = asyncio.get_running_loop().create_future()
        self._task: asyncio.Task[None] | None = None
        self.alive = False

    async def open(self) -> None:
        """Start the session task and wait for the initialized session.

        Raises:
            Exception: why opening failed (the SDK's, or the transport's).
        """
        self._task = asyncio.create_task(self._hold(), name="steadyflow-mcp-session")
        try:
            await asyncio.shield(self._ready)
        except BaseException:  # a timeout, a failure, a cancelled opener: nothing stays open
            await self.close()
            raise
        self.alive = True

    @property
    def session(self) -> ClientSession:
        """The initialized session (only after ``open``)."""
        return self._ready.result()

    async def close(self) -> None:
        """Close the session and its transport (stops a stdio server); safe to repeat."""
        self.alive = False
        self._closing.set()
        if self._task is None:
            return
        if not self._ready.done():
            self._scope.cancel()  # still opening (stuck in initialize): stop there
        await asyncio.wait({self._task})  # the task reports its own errors
        if not self._ready.cancelled():
            self._ready.exception()  # an opening error nobody waits for any more is seen

    async def _hold(self) -> None:
        try:
            with self._scope:
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
            self.transport.connect() as (read, write),
            ClientSession(
                ScreenedReads(read, self._server), write, message_handler=self._on_message
            ) as session,
        ):
            await session.initialize()
            yield session

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, ToolListChangedNotification):
            self._on_list_changed()
        elif isinstance(message, Exception):
            logger.debug("MCP transport reported %s: %s", type(message).__name__, message)
