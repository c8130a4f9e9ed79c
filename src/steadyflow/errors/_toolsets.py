"""Errors of toolsets and MCP servers: a toolset that cannot load, a call past its bounds.

A toolset that cannot give its tools fails the step (``ToolsetUnavailableError``)
unless it is optional; a call that goes wrong is a ``ToolResponseError`` the
model reads, so the two MCP call errors derive from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from ._base import SteadyflowError
from ._tools import ToolResponseError


class ToolsetUnavailableError(SteadyflowError):
    """A toolset could not give its tools for a step: the step fails.

    Raised by ``BaseToolset.get_tools`` (an MCP server that cannot be started,
    reached, initialized or listed). A toolset marked ``optional`` is left
    out of the step instead, with a warning in the log and the step's trace.

    Attributes:
        toolset: the toolset's name (an MCP toolset's server name).
        reason: why it could not load.
        missing_tools: the tools the model goes without, as far as known
            (the last listing, or the names of a ``tool_filter``).
    """

    def __init__(self, toolset: str, reason: str, missing_tools: Sequence[str] = ()) -> None:
        super().__init__(f"toolset {toolset!r} is unavailable: {reason}")
        self.toolset = toolset
        self.reason = reason
        self.missing_tools = list(missing_tools)


class McpTimeoutError(ToolsetUnavailableError):
    """An MCP server did not connect, or list its tools, within its bound.

    Attributes:
        phase: ``"connect"`` (start, connect, ``initialize``) or ``"list"``
            (every page of ``tools/list`` together).
        timeout: the bound in seconds.
    """

    def __init__(
        self,
        toolset: str,
        phase: Literal["connect", "list"],
        timeout: float,
        missing_tools: Sequence[str] = (),
    ) -> None:
        doing = "connect and initialize" if phase == "connect" else "list its tools"
        super().__init__(toolset, f"did not {doing} within {timeout:g} s", missing_tools)
        self.phase = phase
        self.timeout = timeout


class McpCallTimeoutError(ToolResponseError):
    """An MCP tool call got no answer within the toolset's ``timeout``.

    The call is cancelled on the server (``notifications/cancelled``); the
    model reads ``response``, ``{"error": ..., "timeout": seconds}``.
    """

    def __init__(self, server: str, tool: str, timeout: float) -> None:
        message = (
            f"MCP tool {tool!r} on {server!r} timed out after {timeout:g} s "
            "(the call was cancelled)"
        )
        super().__init__(message, {"error": message, "timeout": timeout})
        self.server = server
        self.timeout = timeout


class McpResultTooLargeError(ToolResponseError):
    """An MCP server's message was larger than the toolset's ``max_result_bytes``.

    The model reads ``response``, ``{"error": ..., "max_result_bytes": limit}``.
    """

    def __init__(self, server: str, tool: str, limit: int) -> None:
        message = (
            f"MCP tool {tool!r} on {server!r} sent a result larger than max_result_bytes="
            f"{limit}; it was dropped"
        )
        super().__init__(message, {"error": message, "max_result_bytes": limit})
        self.server = server
        self.limit = limit
