"""``McpToolset``: the tools of one MCP server, over stdio, streamable HTTP or SSE.

Lifecycle: the session opens on first use (the first step that lists the
tools), one per toolset per event loop, and closes with ``runner.close()``
(a stdio server's process is stopped). The tool list is cached until the
server sends ``notifications/tools/list_changed`` or the session is
reopened. A session that drops during a call makes that call an error
response; the next call (or step) opens a new one.

Confirmation (``require_confirmation=``): ``True`` pauses every call for a
person's yes or no, ``"destructive"`` the calls of tools the server marks
destructive, and a predicate ``(tool, args, tool_context) -> bool`` (sync or
async, ``tool`` the server's ``mcp.types.Tool``) decides per call. Per the
MCP spec a tool is destructive unless it says ``readOnlyHint: true`` or
``destructiveHint: false`` (``destructiveHint`` defaults to true), so a
tool with no annotations counts as destructive.

Errors never end the turn: an unreachable server lists no tools for the
step (with a warning), and a failed call (``isError``, a protocol error, a
timeout, a dropped connection) raises ``ToolResponseError``, whose response
the model reads. A timeout or a cancelled call sends MCP's
``notifications/cancelled`` for the request (the SDK does).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import sys
from collections.abc import (
    AsyncGenerator,
    Awaitable,
    Callable,
    Collection,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from typing import Any, Literal, TextIO, cast

from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import (
    CONNECTION_CLOSED,
    REQUEST_TIMEOUT,
    CallToolResult,
    PaginatedRequestParams,
    Tool,
)

from ...context import ReadonlyContext, ToolContext
from ...errors import ConfigurationError, ToolResponseError
from ..base_tool import BaseTool
from ..base_toolset import BaseToolset
from ._connection import McpConnection, OpenTransport
from ._tool import McpTool

__all__ = ["McpConfirmation", "McpToolset"]

logger = logging.getLogger("steadyflow.tools.mcp")

Transport = Literal["stdio", "streamable-http", "sse"]
ToolFilter = Collection[str] | Callable[[Tool], bool]
McpConfirmation = (
    bool
    | Literal["destructive"]
    | Callable[[Tool, dict[str, Any], ToolContext], bool | Awaitable[bool]]
)
"""``McpToolset(require_confirmation=...)``: always, never, destructive tools, or a predicate."""


@dataclass
class _LoopState:
    """What the toolset holds on one event loop."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connection: McpConnection | None = None
    tools: list[Tool] | None = None  # the cached listing; None after list_changed


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
        timeout: seconds one call may take; then the call is cancelled on
            the server and the model reads a timeout error.
        name: the server's name in errors, logs and traces (default: the
            command or the URL).
        require_confirmation: which calls wait for a person's confirmation
            (see the module docstring): ``False`` (default), ``True``,
            ``"destructive"`` or a predicate ``(tool, args, tool_context)``.
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
        timeout: float | None = None,
        name: str | None = None,
        require_confirmation: McpConfirmation = False,
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
        self.require_confirmation: McpConfirmation = require_confirmation
        if timeout is not None and timeout <= 0:
            raise ConfigurationError(f"McpToolset timeout must be positive, got {timeout!r}")
        self._command = list(command) if command is not None else None
        self._env = dict(env) if env is not None else None
        self._cwd = cwd
        self._url = url
        self._headers = dict(headers) if headers is not None else None
        self.transport: Transport = chosen
        self._filter = tool_filter
        self._prefix = tool_name_prefix
        self.timeout = timeout
        self.name = name or (" ".join(self._command) if self._command else str(url))
        self._loops: dict[asyncio.AbstractEventLoop, _LoopState] = {}

    def __repr__(self) -> str:
        return f"McpToolset(name={self.name!r}, transport={self.transport!r})"

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The server's tools (filtered, prefixed); none, with a warning, when it is unreachable."""
        state = self._state()
        try:
            listed = await self._listing(state)
        except (OSError, MCPError, ToolResponseError) as error:
            logger.warning("MCP server %r lists no tools this step: %s", self.name, error)
            return []
        return [McpTool(self, tool, name=self._tool_name(tool.name)) for tool in listed]

    async def call_tool(self, mcp_name: str, arguments: dict[str, Any]) -> CallToolResult:
        """Call ``mcp_name`` on the server; failures raise ``ToolResponseError``."""
        state = self._state()
        connection = await self._connected(state)
        try:
            result = await connection.session.call_tool(
                mcp_name, arguments, read_timeout_seconds=self.timeout
            )
        except MCPError as error:
            raise self._call_error(state, connection, mcp_name, error) from error
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

    async def _listing(self, state: _LoopState) -> list[Tool]:
        connection = await self._connected(state)
        if state.tools is None:
            tools: list[Tool] = []
            cursor: str | None = None
            while True:
                page = await connection.session.list_tools(
                    params=None if cursor is None else PaginatedRequestParams(cursor=cursor)
                )
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
            state.tools = [tool for tool in tools if self._wanted(tool)]
        return state.tools

    async def _connected(self, state: _LoopState) -> McpConnection:
        async with state.lock:
            if state.connection is not None and state.connection.alive:
                return state.connection
            if state.connection is not None:
                await state.connection.close()
            state.tools = None

            def list_changed() -> None:
                state.tools = None

            connection = McpConnection(self._open_transport(), list_changed)
            try:
                await connection.open()
            except Exception as error:  # the SDK's many open failures become one typed error
                await connection.close()
                message = f"could not connect to MCP server {self.name!r}: {_describe(error)}"
                raise ToolResponseError(message, {"error": message}) from error
            state.connection = connection
            return connection

    def _open_transport(self) -> OpenTransport:
        if self._command is not None:
            params = StdioServerParameters(
                command=self._command[0], args=self._command[1:], env=self._env, cwd=self._cwd
            )
            return lambda: stdio_client(params, errlog=_server_stderr())
        url = str(self._url)
        if self.transport == "sse":
            return lambda: sse_client(url, headers=self._headers)
        headers = self._headers

        @contextlib.asynccontextmanager
        async def streamable_http() -> AsyncGenerator[tuple[Any, Any], None]:
            # The SDK leaves a client it is given open: it is closed here.
            async with (
                create_mcp_http_client(headers=headers) as client,
                streamable_http_client(url, http_client=client) as streams,
            ):
                yield streams

        return streamable_http

    def _call_error(
        self, state: _LoopState, connection: McpConnection, mcp_name: str, error: MCPError
    ) -> ToolResponseError:
        where = f"MCP tool {mcp_name!r} on {self.name!r}"
        if error.code == REQUEST_TIMEOUT:
            message = f"{where} timed out after {self.timeout} s (the call was cancelled)"
            return ToolResponseError(message, {"error": message, "timeout": self.timeout})
        if error.code == CONNECTION_CLOSED:
            connection.alive = False  # the next call reconnects
            state.tools = None
            message = f"{where}: the connection dropped during the call"
            return ToolResponseError(message, {"error": message})
        message = f"{where} failed: {error.message}"
        return ToolResponseError(message, {"error": message, "code": error.code})


def _server_stderr() -> TextIO:
    """Where a stdio server's stderr goes: ours, or the process's when ours is not a file."""
    try:
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by a capture or a StringIO
        return sys.__stderr__ or sys.stderr
    return sys.stderr


def _describe(error: BaseException) -> str:
    """The innermost message of an error (the SDK's task groups wrap them)."""
    innermost = _innermost(error)
    return f"{type(innermost).__name__}: {innermost}"


def _innermost(error: BaseException) -> BaseException:
    while True:
        if not isinstance(error, BaseExceptionGroup):
            return error
        group = cast("BaseExceptionGroup[BaseException]", error)
        if not group.exceptions:
            return group
        error = group.exceptions[0]
