"""``McpToolset``: the tools of one MCP server, over stdio, streamable HTTP or SSE.

Lifecycle: the session opens on first use (the first step that lists the
tools), one per toolset per event loop, and closes with ``runner.close()``
(a stdio server's process is stopped). The tool list is cached until the
server sends ``notifications/tools/list_changed`` or the session is
reopened. A session that drops during a call makes that call an error
response; the next call (or step) opens a new one. A streamable-HTTP
session the server no longer knows (it restarted: 404, "Session not
found") is opened again once and the request sent again: the server never
processed it.

Bounds, all on by default: ``connect_timeout`` (start, connect and
``initialize``), ``list_timeout`` (every page of ``tools/list`` together)
and ``max_list_pages``, ``timeout`` (one call), ``max_result_bytes`` (one
message read from a stdio server; over HTTP, one server-sent event).

A toolset that cannot load (no connection, no listing in time) fails the
step with ``ToolsetUnavailableError`` naming the server, unless it was made
with ``optional=True``: the step then goes on without its tools, with a
warning in the log and the step's trace. Within a listing, a tool whose
listing the SDK refuses is left out with a warning; the others are kept.

Confirmation (``require_confirmation=``): ``True`` pauses every call for a
person's yes or no, ``"destructive"`` the calls of tools the server marks
destructive (``McpTool.destructive``: unannotated tools are), and a predicate
``(tool, args, tool_context) -> bool`` (sync or async) decides per call.

A failed call (``isError``, a protocol error, a timeout, a dropped
connection, a result too large) raises ``ToolResponseError``, whose
response the model reads. A timeout or a cancelled call sends MCP's
``notifications/cancelled`` for the request (the SDK does).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard, TypeVar, cast

from mcp.shared.exceptions import MCPError
from mcp.types import CONNECTION_CLOSED, CallToolResult, PaginatedRequestParams, Tool
from pydantic import ValidationError

from ...context import ReadonlyContext, ToolContext
from ...errors import (
    ConfigurationError,
    McpTimeoutError,
    ToolResponseError,
    ToolsetUnavailableError,
)
from ..base_tool import BaseTool
from ..base_toolset import BaseToolset
from ._connection import McpConnection
from ._failures import CallFailed, call_error, describe, misfit, session_lost
from ._screen import usable_schema
from ._stdio import StdioServer
from ._tool import McpTool
from ._transports import HttpServer, McpTransport

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_LIST_TIMEOUT",
    "DEFAULT_MAX_LIST_PAGES",
    "DEFAULT_MAX_RESULT_BYTES",
    "McpConfirmation",
    "McpToolset",
]

logger = logging.getLogger("steadyflow.tools.mcp")

DEFAULT_CONNECT_TIMEOUT = 30.0
"""Seconds to start (or reach) a server and finish ``initialize``."""
DEFAULT_LIST_TIMEOUT = 30.0
"""Seconds for every page of ``tools/list`` together."""
DEFAULT_MAX_LIST_PAGES = 100
"""Pages of ``tools/list`` read at most (a ``nextCursor`` that never ends)."""
DEFAULT_CALL_TIMEOUT = 300.0
"""Seconds one tool call may take."""
DEFAULT_MAX_RESULT_BYTES = 16 * 1024 * 1024
"""Bytes of one message from the server (a tool's result) read at most."""

Transport = Literal["stdio", "streamable-http", "sse"]
ToolFilter = Collection[str] | Callable[[Tool], bool]
McpConfirmation = (
    bool
    | Literal["destructive"]
    | Callable[[Tool, dict[str, Any], ToolContext], bool | Awaitable[bool]]
)
"""``McpToolset(require_confirmation=...)``: always, never, destructive tools, or a predicate."""

_T = TypeVar("_T")


@dataclass
class _LoopState:
    """What the toolset holds on one event loop."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connection: McpConnection | None = None
    tools: list[Tool] | None = None  # the cached listing; None after list_changed


def _check_bounds(timeouts: Mapping[str, object], counts: Mapping[str, object]) -> None:
    """Refuse a bound that is not a positive number (of seconds, or None; of pages or bytes)."""
    for option, value in timeouts.items():
        if value is not None and not (_number(value) and value > 0):
            raise ConfigurationError(
                f"McpToolset {option} must be positive seconds or None, got {value!r}"
            )
    for option, value in counts.items():
        if not (isinstance(value, int) and not isinstance(value, bool) and value > 0):
            raise ConfigurationError(
                f"McpToolset {option} must be a positive integer, got {value!r}"
            )


def _number(value: object) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


class McpToolset(BaseToolset):
    """The tools of an MCP server.

    Args:
        command: for stdio, the server's command line (started and stopped
            by the toolset).
        env: for stdio, extra environment variables for the server.
        cwd: for stdio, the server's working directory (its stderr is ours).
        url: for streamable HTTP (or SSE), the server's endpoint.
        headers: HTTP headers sent with every request (authorization).
        transport: ``"stdio"`` with ``command``, ``"streamable-http"``
            (default with ``url``) or ``"sse"``.
        tool_filter: the server's tool names to offer, or a predicate on
            the server's ``mcp.types.Tool``.
        tool_name_prefix: put before each tool name the model sees (names
            are made identifiers: other characters become ``_``).
        timeout: seconds one call may take (default 300); then the call is
            cancelled on the server and the model reads a timeout error.
        connect_timeout: seconds to start or reach the server and
            initialize the session (default 30).
        list_timeout: seconds for the whole tool listing, every page
            together (default 30).
        max_list_pages: pages of the listing read at most (default 100).
        max_result_bytes: the largest message read from the server (default
            16 MiB); a larger result is an error the model reads.
        name: the server's name in errors, logs and traces (default: the
            command or the URL).
        require_confirmation: which calls wait for a person's confirmation
            (see the module docstring): ``False`` (default), ``True``,
            ``"destructive"`` or a predicate ``(tool, args, tool_context)``.
        optional: a server that cannot load leaves its tools out of the
            step (with a warning) instead of failing it.

    The timeouts take None for no bound.
    """

    def __init__(
        self,
        *,
        command: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        url: str | None = None,
        headers: Mapping[str, str] | None = None,
        transport: Transport | None = None,
        tool_filter: ToolFilter | None = None,
        tool_name_prefix: str = "",
        timeout: float | None = DEFAULT_CALL_TIMEOUT,
        connect_timeout: float | None = DEFAULT_CONNECT_TIMEOUT,
        list_timeout: float | None = DEFAULT_LIST_TIMEOUT,
        max_list_pages: int = DEFAULT_MAX_LIST_PAGES,
        max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
        name: str | None = None,
        require_confirmation: McpConfirmation = False,
        optional: bool = False,
    ) -> None:
        if (command is None) == (url is None):
            raise ConfigurationError("McpToolset needs exactly one of command= (stdio) or url=")
        chosen = transport or ("stdio" if command is not None else "streamable-http")
        if (chosen == "stdio") != (command is not None):
            raise ConfigurationError(
                f"McpToolset transport {chosen!r} does not fit "
                + ("command=" if command is not None else "url=")
            )
        if command is not None and not command:
            raise ConfigurationError("McpToolset command= must name a program")
        if not (
            isinstance(require_confirmation, bool)
            or require_confirmation == "destructive"
            or callable(require_confirmation)
        ):
            raise ConfigurationError(
                "McpToolset require_confirmation must be a bool, 'destructive' or a callable "
                f"(tool, args, tool_context) -> bool, got {require_confirmation!r}"
            )
        _check_bounds(
            {"timeout": timeout, "connect_timeout": connect_timeout, "list_timeout": list_timeout},
            {"max_list_pages": max_list_pages, "max_result_bytes": max_result_bytes},
        )
        self.require_confirmation: McpConfirmation = require_confirmation
        self._command = list(command) if command is not None else None
        self._env = dict(env) if env is not None else None
        self._cwd = cwd
        self._url = url
        self._headers = dict(headers) if headers is not None else None
        self.transport: Transport = chosen
        self._filter = tool_filter
        self._prefix = tool_name_prefix
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.list_timeout = list_timeout
        self.max_list_pages = max_list_pages
        self.max_result_bytes = max_result_bytes
        self.optional = optional
        self.name = name or (" ".join(self._command) if self._command else str(url))
        self._loops: dict[asyncio.AbstractEventLoop, _LoopState] = {}
        self._last_listed: list[str] = []  # the tools of the last listing, for missing_tools

    def __repr__(self) -> str:
        return f"McpToolset(name={self.name!r}, transport={self.transport!r})"

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The server's tools (filtered, prefixed).

        Raises:
            ToolsetUnavailableError: the server could not be reached, started
                or listed (``McpTimeoutError`` when a bound ran out).
        """
        listed = await self._listing(self._state())
        return [McpTool(self, tool, name=self._tool_name(tool.name)) for tool in listed]

    async def call_tool(self, mcp_name: str, arguments: dict[str, Any]) -> CallToolResult:
        """Call ``mcp_name`` on the server; failures raise ``ToolResponseError``."""
        state = self._state()
        try:
            result = await self._once_more_if_lost(
                state,
                lambda session: session.call_tool(
                    mcp_name, arguments, read_timeout_seconds=self.timeout
                ),
            )
        except ToolsetUnavailableError as error:
            message = f"MCP tool {mcp_name!r}: {error}"
            raise ToolResponseError(message, {"error": message}) from error
        except CallFailed as failed:
            raise self._call_error(state, failed.connection, mcp_name, failed.error) from (
                failed.error
            )
        except ValidationError as error:
            message = f"MCP tool {mcp_name!r} on {self.name!r} sent {misfit(error)}"
            raise ToolResponseError(message, {"error": message}) from error
        if not isinstance(result, CallToolResult):  # an extension's result we did not ask for
            raise ToolResponseError(
                f"MCP tool {mcp_name!r} sent no tool result",
                {"error": f"MCP tool {mcp_name!r} on {self.name!r} sent no tool result"},
            )
        return result

    async def close(self) -> None:
        """Close this event loop's session (and stop a stdio server); others are dropped."""
        state = self._loops.pop(asyncio.get_running_loop(), None)
        self._loops.clear()
        if state is not None and state.connection is not None:
            await state.connection.close()

    def _state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        state = self._loops.get(loop)
        if state is None:
            state = self._loops[loop] = _LoopState()
        return state

    def _tool_name(self, mcp_name: str) -> str:
        name = re.sub(r"\W", "_", self._prefix + mcp_name)
        return name if name.isidentifier() else "_" + name

    def _wanted(self, tool: Tool) -> bool:
        if self._filter is None:
            return True
        if callable(self._filter):
            return self._filter(tool)
        return tool.name in self._filter

    def _missing(self) -> list[str]:
        """The tools a failed load leaves out, as far as known."""
        if self._last_listed:
            return list(self._last_listed)
        if self._filter is not None and not callable(self._filter):
            return sorted(self._tool_name(name) for name in self._filter)
        return []

    async def _listing(self, state: _LoopState) -> list[Tool]:
        if state.tools is not None and state.connection is not None and state.connection.alive:
            return state.tools
        await self._connected(state)  # bounded by connect_timeout, not by list_timeout
        bound = asyncio.timeout(self.list_timeout)
        try:
            async with bound:
                tools = await self._once_more_if_lost(state, self._all_pages)
        except TimeoutError as error:
            if bound.expired():
                raise McpTimeoutError(
                    self.name, "list", cast("float", self.list_timeout), self._missing()
                ) from error
            raise
        except CallFailed as failed:
            failed.connection.alive = False
            reason = f"tools/list failed: {failed.error.message}"
            raise ToolsetUnavailableError(self.name, reason, self._missing()) from failed.error
        except ValidationError as error:
            reason = f"tools/list sent {misfit(error)}"
            raise ToolsetUnavailableError(self.name, reason, self._missing()) from error
        state.tools = [t for t in tools if self._wanted(t) and usable_schema(self.name, t)]
        self._last_listed = [self._tool_name(tool.name) for tool in state.tools]
        return state.tools

    async def _all_pages(self, session: Any) -> list[Tool]:
        tools: list[Tool] = []
        cursor: str | None = None
        for _ in range(self.max_list_pages):
            page = await session.list_tools(
                params=None if cursor is None else PaginatedRequestParams(cursor=cursor)
            )
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                return tools
        reason = f"its tool list goes on past max_list_pages={self.max_list_pages} pages"
        raise ToolsetUnavailableError(self.name, reason, self._missing())

    async def _once_more_if_lost(
        self, state: _LoopState, request: Callable[[Any], Awaitable[_T]]
    ) -> _T:
        """``request(session)``; on a session the server lost, once more on a new one.

        A server that restarted answers an old session's request with 404
        "Session not found": it never ran it, so sending it again is safe.

        Raises:
            CallFailed: the server answered with an error.
        """
        for attempt in (1, 2):
            connection = await self._connected(state)
            try:
                return await request(connection.session)
            except MCPError as error:
                if attempt == 1 and session_lost(error):
                    logger.warning(
                        "MCP server %r lost its session (%s); opening a new one",
                        self.name,
                        error.message,
                    )
                    connection.alive = False
                    continue
                raise CallFailed(connection, error) from error
        raise AssertionError("unreachable: the second attempt returns or raises")

    async def _connected(self, state: _LoopState) -> McpConnection:
        async with state.lock:
            if state.connection is not None and state.connection.alive:
                return state.connection
            if state.connection is not None:
                await state.connection.close()
            state.connection, state.tools = None, None

            def list_changed() -> None:
                state.tools = None

            connection = McpConnection(self._new_transport(), self.name, list_changed)
            try:
                async with asyncio.timeout(self.connect_timeout):
                    await connection.open()
            except TimeoutError as error:
                timeout = cast("float", self.connect_timeout)
                raise McpTimeoutError(self.name, "connect", timeout, self._missing()) from error
            except Exception as error:  # the SDK's many open failures become one typed error
                reason = f"could not connect: {describe(error)}"
                raise ToolsetUnavailableError(self.name, reason, self._missing()) from error
            state.connection = connection
            return connection

    def _new_transport(self) -> McpTransport:
        if self._command is not None:
            return StdioServer(self._command, self._env, self._cwd, self.max_result_bytes)
        return HttpServer(
            str(self._url), self._headers, self.transport == "sse", self.max_result_bytes
        )

    def _call_error(
        self, state: _LoopState, connection: McpConnection, mcp_name: str, error: MCPError
    ) -> ToolResponseError:
        if error.code == CONNECTION_CLOSED:
            connection.alive = False  # the next call reconnects
            state.tools = None
        return call_error(
            self.name,
            mcp_name,
            error,
            timeout=self.timeout,
            too_large=connection.transport.too_large,
            max_result_bytes=self.max_result_bytes,
        )
