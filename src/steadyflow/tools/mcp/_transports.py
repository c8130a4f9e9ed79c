"""How a toolset reaches its server: streamable HTTP and SSE (stdio is in ``_stdio``).

Each transport opens one connection per ``connect()`` and says whether a
message was too large to read (``too_large``), so the toolset can tell a
dropped connection from a refused result.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

__all__ = ["HttpServer", "McpTransport"]


class McpTransport(Protocol):
    """A way to open connections to one server."""

    too_large: bool

    def connect(self) -> AbstractAsyncContextManager[tuple[Any, Any]]:
        """Open a connection: the (read, write) streams a ``ClientSession`` takes."""
        ...


@dataclass
class HttpServer:
    """A server over streamable HTTP (or SSE, the older HTTP transport).

    Attributes:
        url: the endpoint.
        headers: sent with every request.
        sse: use the SSE transport.
        max_event_bytes: the largest server-sent event the SDK buffers (the
            SDK's own cap, which ends the request with an error past it).
        too_large: always False: the SDK reads HTTP messages itself.
    """

    url: str
    headers: dict[str, str] | None
    sse: bool
    max_event_bytes: int
    too_large: bool = False

    @contextlib.asynccontextmanager
    async def connect(self) -> AsyncGenerator[tuple[Any, Any], None]:
        """Open a connection to the server."""
        if self.sse:
            async with sse_client(self.url, headers=self.headers) as (read, write):
                yield read, write
            return
        # The SDK leaves a client it is given open: it is closed here.
        async with (
            create_mcp_http_client(headers=self.headers) as client,
            streamable_http_client(
                self.url, http_client=client, max_sse_event_size=self.max_event_bytes
            ) as (read, write),
        ):
            yield read, write
