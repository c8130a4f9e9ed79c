"""A scripted raw HTTP/1.1 server on loopback, for what the emulator cannot send.

The provider emulator speaks each API correctly and injects the faults it
knows. Hardening tests need answers no honest server gives: a body that ends
cleanly before its end marker, invalid UTF-8, an error payload under status
200, a byte every few hundred milliseconds, a redirect to another origin. A
``HostileServer`` answers each request with the next scripted ``Reply``
(the last one repeats), records every request, and notices when a client
closes its connection while a reply is still going (the test for "stopping
early closes the provider stream").

It runs in the test's own event loop::

    async with HostileServer() as server:
        server.script(Reply(body=[b'data: {"x": 1}\\n\\n'], framing="chunked"))
        ...  # point an adapter at server.url
        assert server.requests[0].path == "/v1/chat/completions"
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Literal

__all__ = ["HostileServer", "Pause", "RecordedRequest", "Reply", "sse"]


@dataclass(frozen=True)
class Pause:
    """Wait this many seconds before the next body piece (keep them tiny)."""

    seconds: float


@dataclass(frozen=True)
class Reply:
    """One scripted answer.

    Attributes:
        status: the HTTP status code.
        headers: extra response headers (Content-Type defaults to JSON).
        body: the body, as pieces written in order, with optional pauses.
        framing: ``"chunked"`` (Transfer-Encoding: chunked), ``"length"``
            (Content-Length of the whole body) or ``"close"`` (no length: the
            body ends when the server closes the connection).
        ending: ``"complete"`` ends the body properly for its framing (for
            ``"close"``: by closing); ``"abort"`` closes the connection
            without the terminating chunk or before Content-Length is reached
            (a cut body); ``"hang"`` keeps the connection open and silent
            after the pieces, until the client closes it.
    """

    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Sequence[bytes | Pause] = ()
    framing: Literal["chunked", "length", "close"] = "chunked"
    ending: Literal["complete", "abort", "hang"] = "complete"


@dataclass(frozen=True)
class RecordedRequest:
    """A request as the server read it (header names lower-cased)."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


def sse(*events: str | tuple[str, str]) -> list[bytes]:
    """Server-sent-event pieces: a ``data`` string, or an ``(event, data)`` pair each."""
    pieces: list[bytes] = []
    for item in events:
        if isinstance(item, tuple):
            name, data = item
            pieces.append(f"event: {name}\ndata: {data}\n\n".encode())
        else:
            pieces.append(f"data: {item}\n\n".encode())
    return pieces


_REASONS = {200: "OK", 307: "Temporary Redirect", 400: "Bad Request", 500: "Server Error"}


class HostileServer:
    """Answers each request with the next scripted ``Reply`` (the last repeats).

    Attributes:
        requests: every request read, in order.
        closed_by_client: set when a client closed its connection while a
            reply was being written or held open.
        closed_at: the event loop's time (``loop.time()``) of each such close.
    """

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.closed_by_client = asyncio.Event()
        self.closed_at: list[float] = []
        self._replies: list[Reply] = [Reply(body=[b"{}"], framing="length")]
        self._served = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def script(self, *replies: Reply) -> None:
        """Answer the next requests with ``replies`` in order; the last one repeats."""
        if not replies:
            raise ValueError("script() needs at least one Reply")
        self._replies = list(replies)
        self._served = 0

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``, without a trailing slash."""
        if self._server is None:
            raise RuntimeError("the server is not started")
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def start(self) -> HostileServer:
        """Listen on a free loopback port."""
        self._server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        return self

    async def aclose(self) -> None:
        """Stop listening and drop every open connection."""
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, ConnectionError):
                await task
        if self._server is not None:
            await self._server.wait_closed()

    async def __aenter__(self) -> HostileServer:
        return await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def _next_reply(self) -> Reply:
        reply = self._replies[min(self._served, len(self._replies) - 1)]
        self._served += 1
        return reply

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    return
                self.requests.append(request)
                if not await self._answer(self._next_reply(), reader, writer):
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def _answer(
        self, reply: Reply, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """Write ``reply``; True when the connection may serve another request."""
        data = b"".join(p for p in reply.body if isinstance(p, bytes))
        headers = {
            "content-type": "application/json",
            **{k.lower(): v for k, v in reply.headers.items()},
        }
        if reply.framing == "chunked":
            headers["transfer-encoding"] = "chunked"
        elif reply.framing == "length":
            headers["content-length"] = str(len(data))
        else:
            headers["connection"] = "close"
        head = f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Status')}\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
        writer.write(head.encode())
        await writer.drain()
        eof = asyncio.ensure_future(reader.read(1))  # b"" once the client closes
        try:
            for piece in reply.body:
                if isinstance(piece, Pause):
                    done, _ = await asyncio.wait({eof}, timeout=piece.seconds)
                    if done:
                        self._client_closed()
                        return False
                    continue
                writer.write(_frame(piece) if reply.framing == "chunked" else piece)
                await writer.drain()
            if reply.ending == "hang":
                await eof
                self._client_closed()
                return False
            if reply.ending == "abort" or reply.framing == "close":
                return False
            if reply.framing == "chunked":
                writer.write(b"0\r\n\r\n")
                await writer.drain()
            return True
        except ConnectionError:
            self._client_closed()
            return False
        finally:
            eof.cancel()

    def _client_closed(self) -> None:
        self.closed_at.append(asyncio.get_running_loop().time())
        self.closed_by_client.set()


def _frame(piece: bytes) -> bytes:
    return f"{len(piece):x}\r\n".encode() + piece + b"\r\n"


async def _read_request(reader: asyncio.StreamReader) -> RecordedRequest | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = await _read_chunked(reader)
    else:
        body = await reader.readexactly(int(headers.get("content-length", "0")))
    return RecordedRequest(method=method, path=path, headers=headers, body=body)


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    body = b""
    while True:
        size = int((await reader.readline()).split(b";")[0].strip(), 16)
        if size == 0:
            await reader.readline()
            return body
        body += await reader.readexactly(size)
        await reader.readline()
