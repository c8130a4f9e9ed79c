"""MCP servers for the tests: the SDK's server side, in a subprocess, over each transport."""

import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from steadyflow.tools.mcp import McpToolset

SERVER = str(Path(__file__).with_name("server.py"))


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


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve(transport: str) -> Iterator[int]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, SERVER, transport, str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30  # readiness, not a timed assertion
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"MCP {transport} test server did not start") from None
                time.sleep(0.05)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def http_port() -> Iterator[int]:
    yield from _serve("streamable-http")


@pytest.fixture
def sse_port() -> Iterator[int]:
    yield from _serve("sse")
