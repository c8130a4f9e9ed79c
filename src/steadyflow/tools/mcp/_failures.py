"""How an MCP server's failures become steadyflow's typed errors.

A request the server answered with an error is ``CallFailed`` inside the
toolset; ``call_error`` turns a failed tool call into the
``ToolResponseError`` the model reads, ``session_lost`` tells a session the
server forgot (it restarted) from other refusals, and ``misfit`` says what
an answer the SDK's validation refused got wrong.
"""

from __future__ import annotations

import re
from typing import cast

from mcp.shared.exceptions import MCPError
from mcp.types import CONNECTION_CLOSED, INVALID_REQUEST, REQUEST_TIMEOUT
from pydantic import ValidationError

from ...errors import McpCallTimeoutError, McpResultTooLargeError, ToolResponseError
from ._connection import McpConnection

__all__ = ["CallFailed", "call_error", "describe", "misfit", "session_lost"]

_SESSION_LOST = re.compile(r"session (not found|terminated)", re.IGNORECASE)
# The SDK's streamable-HTTP transport ends a request whose server-sent event
# passes its max_sse_event_size with this text (from httpx's SSE reader).
_EVENT_TOO_LARGE = re.compile(r"event exceeded the \d+ byte limit", re.IGNORECASE)


class CallFailed(Exception):
    """A request the server answered with an error, and the connection that carried it."""

    def __init__(self, connection: McpConnection, error: MCPError) -> None:
        super().__init__(error.message)
        self.connection = connection
        self.error = error


def session_lost(error: MCPError) -> bool:
    """Whether the server no longer knows the session (404 "Session not found/terminated")."""
    return error.code == INVALID_REQUEST and _SESSION_LOST.search(error.message) is not None


def call_error(
    server: str,
    mcp_name: str,
    error: MCPError,
    *,
    timeout: float | None,
    too_large: bool,
    max_result_bytes: int,
) -> ToolResponseError:
    """The error the model reads for a call to ``mcp_name`` that failed with ``error``.

    ``too_large``: the transport dropped the connection over a message past
    ``max_result_bytes``, which the session only sees as a closed connection
    (over streamable HTTP the SDK says so in the error's message).
    """
    where = f"MCP tool {mcp_name!r} on {server!r}"
    if error.code == REQUEST_TIMEOUT:
        return McpCallTimeoutError(server, mcp_name, cast("float", timeout))
    if error.code == CONNECTION_CLOSED:
        if too_large or _EVENT_TOO_LARGE.search(error.message):
            return McpResultTooLargeError(server, mcp_name, max_result_bytes)
        message = f"{where}: the connection dropped during the call"
        return ToolResponseError(message, {"error": message})
    message = f"{where} failed: {error.message}"
    return ToolResponseError(message, {"error": message, "code": error.code})


def misfit(error: ValidationError) -> str:
    """What an answer the SDK refused got wrong, in one line (no pydantic error escapes)."""
    problem = error.errors()[0]
    where = ".".join(str(part) for part in problem["loc"]) or "(result)"
    return f"an answer that does not fit the MCP schema ({where}: {problem['msg']})"


def describe(error: BaseException) -> str:
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
