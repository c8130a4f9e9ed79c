"""A small HTTP/1.1 server on asyncio streams, just enough for the emulator.

The provider emulator must misbehave the way real networks do: reset a
connection before any header, stall past a client's timeout, cut a chunked
SSE stream in the middle. A full framework hides exactly those levers, so
this module speaks HTTP/1.1 itself: keep-alive, ``Content-Length`` and
chunked request bodies, plain and chunked responses, and an abortive close
(TCP RST) on demand.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from urllib.parse import parse_qs, urlsplit

__all__ = ["HttpRequest", "HttpResponder", "RequestHandler", "read_request", "serve_connection"]

_MAX_HEADER_BYTES = 64 * 1024
_MAX_BODY_BYTES = 32 * 1024 * 1024


@dataclass
class HttpRequest:
    """One parsed request: method, path, query, lower-cased headers and body."""

    method: str
    target: str
    headers: dict[str, str]
    body: bytes
    path: str = ""
    query: dict[str, list[str]] = field(default_factory=lambda: {})

    def __post_init__(self) -> None:
        parts = urlsplit(self.target)
        self.path = parts.path
        self.query = parse_qs(parts.query)

    @property
    def keep_alive(self) -> bool:
        """Whether the client wants the connection kept open afterwards."""
        return self.headers.get("connection", "").lower() != "close"


class _BadRequest(Exception):
    """The bytes on the wire are not an HTTP/1.1 request we can read."""


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Site Overloaded" if status == 529 else "Unknown"


class HttpResponder:
    """Writes one response on a connection, in whole or in chunks, or breaks it."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        self.closed = False
        self.started = False

    async def _write(self, data: bytes) -> None:
        self._writer.write(data)
        await self._writer.drain()

    def _head(self, status: int, headers: Mapping[str, str]) -> bytes:
        lines = [f"HTTP/1.1 {status} {_reason(status)}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    async def send(self, status: int, body: bytes, headers: Mapping[str, str]) -> None:
        """Send a complete response with a ``Content-Length``."""
        all_headers = {**headers, "content-length": str(len(body))}
        self.started = True
        await self._write(self._head(status, all_headers) + body)

    async def start_chunked(self, status: int, headers: Mapping[str, str]) -> None:
        """Send the head of a chunked response (for SSE)."""
        self.started = True
        await self._write(self._head(status, {**headers, "transfer-encoding": "chunked"}))

    async def send_chunk(self, data: bytes) -> None:
        """Send one chunk of a chunked response."""
        if data:
            await self._write(f"{len(data):x}\r\n".encode("ascii") + data + b"\r\n")

    async def end_chunked(self) -> None:
        """Send the terminating zero-length chunk."""
        await self._write(b"0\r\n\r\n")

    async def send_partial(self, status: int, body: bytes, headers: Mapping[str, str]) -> None:
        """Announce ``body`` in full but send only its first half, then hang up."""
        all_headers = {**headers, "content-length": str(len(body))}
        self.started = True
        await self._write(self._head(status, all_headers) + body[: len(body) // 2])
        self.hang_up()

    def hang_up(self) -> None:
        """Close the connection in the middle of a response (a clean FIN)."""
        self.closed = True
        self._writer.close()

    def reset(self) -> None:
        """Abort the connection with a TCP RST (``SO_LINGER`` of zero)."""
        self.closed = True
        sock = self._writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport = self._writer.transport
        transport.abort()


RequestHandler = Callable[[HttpRequest, HttpResponder], Awaitable[None]]


async def _read_body(reader: asyncio.StreamReader, headers: Mapping[str, str]) -> bytes:
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = bytearray()
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                return bytes(body)
            body += await reader.readexactly(size)
            await reader.readexactly(2)
            if len(body) > _MAX_BODY_BYTES:
                raise _BadRequest("request body too large")
    length = int(headers.get("content-length", "0") or "0")
    if length > _MAX_BODY_BYTES:
        raise _BadRequest("request body too large")
    return await reader.readexactly(length) if length else b""


async def read_request(reader: asyncio.StreamReader) -> HttpRequest | None:
    """The next request on the connection, or None when the client closed it."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    except asyncio.LimitOverrunError as exc:
        raise _BadRequest("request head too large") from exc
    lines = head.decode("latin-1").split("\r\n")
    try:
        method, target, _version = lines[0].split(" ", 2)
    except ValueError as exc:
        raise _BadRequest(f"bad request line {lines[0]!r}") from exc
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    body = await _read_body(reader, headers)
    return HttpRequest(method=method.upper(), target=target, headers=headers, body=body)


async def serve_connection(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, handler: RequestHandler
) -> None:
    """Serve requests on one connection until either side closes it."""
    try:
        while True:
            try:
                request = await read_request(reader)
            except (_BadRequest, ValueError, asyncio.IncompleteReadError):
                await HttpResponder(writer).send(400, b"bad request", {"connection": "close"})
                return
            if request is None:
                return
            responder = HttpResponder(writer)
            await handler(request, responder)
            if responder.closed or not request.keep_alive:
                return
    except (ConnectionError, asyncio.IncompleteReadError):
        return
    finally:
        if not writer.is_closing():
            writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
