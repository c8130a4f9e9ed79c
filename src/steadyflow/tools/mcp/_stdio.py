"""The stdio transport: an MCP server as a subprocess, one JSON-RPC message per line.

The SDK has its own (``mcp.client.stdio``); this one exists for what a
server we do not control may send:

- lines are gathered as a list of chunks and joined once, so reading a
  result takes time linear in its size (the SDK's concatenates the buffer
  at every chunk: a 48 MiB result took 20 s);
- a line longer than ``max_line_bytes`` is not read to its end: the
  transport records it (``too_large``) and ends the connection, so the calls
  waiting fail at once instead of after their timeout (the line's request
  id is somewhere in the bytes not read);
- bytes that are not UTF-8 are decoded with replacement (U+FFFD), so one bad
  byte in a text costs that character, not the whole result.

The server runs in a process group of its own; leaving the transport, on
every path (a cancelled opener included), closes its stdin, waits
``grace`` seconds for it to exit, then ends the group with SIGTERM and,
``grace`` seconds later, SIGKILL. That shutdown is shielded from
cancellation, so no server process outlives its toolset's ``close()``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import anyio
from anyio.abc import ByteReceiveStream, Process
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage
from mcp.types import jsonrpc_message_adapter

__all__ = ["StdioServer", "read_lines", "server_stderr"]

logger = logging.getLogger("steadyflow.tools.mcp")


_HARD_KILL = getattr(signal, "SIGKILL", signal.SIGTERM)


class _LineTooLong(Exception):
    """A line passed the transport's ``max_line_bytes``."""


@dataclass
class StdioServer:
    """How to start a stdio server, and what its transport observed.

    Attributes:
        command: the program and its arguments.
        env: extra environment variables (over the SDK's safe defaults).
        cwd: the working directory.
        max_line_bytes: the largest message read; a longer one ends the connection.
        grace: seconds the server gets to exit at each step of its shutdown.
        too_large: set when a message passed ``max_line_bytes`` (read by the toolset).
    """

    command: Sequence[str]
    env: dict[str, str] | None
    cwd: str | None
    max_line_bytes: int
    grace: float = 2.0
    too_large: bool = False

    @contextlib.asynccontextmanager
    async def connect(self) -> AsyncGenerator[tuple[Any, Any], None]:
        """Start the server; the (read, write) streams a ``ClientSession`` takes."""
        process = await anyio.open_process(
            list(self.command),
            env=get_default_environment() | (self.env or {}),
            cwd=self.cwd,
            stderr=server_stderr(),
            start_new_session=True,  # its own group: the shutdown ends its children too
        )
        to_session, read = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write, from_session = anyio.create_memory_object_stream[SessionMessage](0)
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self._read, process, to_session)
                tasks.start_soon(_write, process, from_session)
                try:
                    yield read, write
                finally:
                    with anyio.CancelScope(shield=True):  # the reader drains stdout meanwhile
                        await _stop(process, self.grace)
                    tasks.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                for stream in (read, write, to_session, from_session):
                    await stream.aclose()

    async def _read(self, process: Process, to_session: Any) -> None:
        assert process.stdout is not None
        async with to_session:
            try:
                async for line in read_lines(process.stdout, self.max_line_bytes):
                    await to_session.send(_parse(line))
            except _LineTooLong:
                self.too_large = True
                logger.warning(
                    "MCP server %r sent a message over %d bytes; closing the connection",
                    self.command[0],
                    self.max_line_bytes,
                )
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                pass  # the session or the process is gone: the connection ends
        await _discard(process.stdout)


async def _discard(stdout: ByteReceiveStream) -> None:
    """Read what the server still writes, so it is not left blocked on a full pipe."""
    with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, OSError):
        while True:
            await stdout.receive()


async def read_lines(stream: AsyncIterable[bytes], limit: int) -> AsyncIterator[bytes]:
    """The newline-separated lines of ``stream``; ``_LineTooLong`` past ``limit`` bytes.

    Each byte is looked at once: a line's chunks are kept in a list and
    joined when its newline arrives.
    """
    pending: list[bytes] = []
    size = 0
    async for chunk in stream:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            if size + end - start > limit:
                raise _LineTooLong
            pending.append(chunk[start:end])
            yield b"".join(pending)
            pending, size = [], 0
            start = end + 1
        size += len(chunk) - start
        if size > limit:
            raise _LineTooLong
        if start < len(chunk):
            pending.append(chunk[start:])


def _parse(line: bytes) -> SessionMessage | Exception:
    """One line as a message, or the parse error (the session logs it and goes on)."""
    try:
        text = line.decode("utf-8", errors="replace")
        return SessionMessage(jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as error:
        return error


async def _write(process: Process, from_session: Any) -> None:
    assert process.stdin is not None
    async with from_session:
        try:
            async for message in from_session:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await process.stdin.send(data.encode() + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass  # the server stopped reading: the reader sees the end


async def _stop(process: Process, grace: float) -> None:
    """Close the server's stdin, then end its process group if it does not exit."""
    assert process.stdin is not None
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    if not await _exited(process, grace):
        _signal_group(process, signal.SIGTERM)
        if not await _exited(process, grace):
            _signal_group(process, _HARD_KILL)
            if not await _exited(process, grace):
                logger.warning("MCP server process %d survived SIGKILL; abandoning it", process.pid)
                return
    await process.aclose()


async def _exited(process: Process, within: float) -> bool:
    with anyio.move_on_after(within):
        await process.wait()
    return process.returncode is not None


def _signal_group(process: Process, sig: signal.Signals) -> None:
    try:
        if sys.platform == "win32":  # pragma: no cover - no process groups there
            process.terminate()
        else:
            os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass  # it exited meanwhile


def server_stderr() -> TextIO:
    """Where a stdio server's stderr goes: ours, or the process's when ours is not a file."""
    try:
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by a capture or a StringIO
        return sys.__stderr__ or sys.stderr
    return sys.stderr
