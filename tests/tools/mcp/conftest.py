"""MCP servers for the tests: the SDK's server side, in a subprocess, over each transport.

Hostile servers too: ``hostile.py`` over stdio (raw JSON-RPC lines), and a
port that accepts connections and never answers.
"""

import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from steadyflow.tools.mcp import McpToolset

SERVER = str(Path(__file__).with_name("server.py"))
HOSTILE = str(Path(__file__).with_name("hostile.py"))


@pytest.fixture
def server_log(tmp_path: Path) -> Path:
    return tmp_path / "server.log"


@pytest.fixture
def stdio_toolset(server_log: Path) -> Callable[..., McpToolset]:
    def make(**options: object) -> McpToolset:
        return McpToolset(
            command=[sys.executable, SERVER, "stdio"],
            env={"MCP_TEST_LOG": str(server_log)},
            name="test-server",
            **options,  # type: ignore[arg-type]
        )

    return make


@pytest.fixture
def hostile_toolset(server_log: Path) -> Callable[..., McpToolset]:
    """``make(mode, env=..., **options)``: a toolset on ``hostile.py MODE``.

    The server writes its pid to ``server_log`` first.
    """

    def make(mode: str, env: dict[str, str] | None = None, **options: object) -> McpToolset:
        return McpToolset(
            command=[sys.executable, HOSTILE, mode],
            env={"MCP_TEST_LOG": str(server_log), **(env or {})},
            name="hostile",
            **options,  # type: ignore[arg-type]
        )

    return make


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ServerProcess:
    """``server.py TRANSPORT PORT`` in a subprocess that a test may restart."""

    def __init__(self, transport: str) -> None:
        self.transport = transport
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, SERVER, self.transport, str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30  # readiness, not a timed assertion
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"MCP {self.transport} test server did not start") from None
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()


def _serve(transport: str) -> Iterator[ServerProcess]:
    server = ServerProcess(transport)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def http_server() -> Iterator[ServerProcess]:
    yield from _serve("streamable-http")


@pytest.fixture
def http_port(http_server: ServerProcess) -> int:
    return http_server.port


@pytest.fixture
def sse_port() -> Iterator[int]:
    for server in _serve("sse"):
        yield server.port


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port whose listener accepts connections (the kernel does) and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield int(listener.getsockname()[1])
