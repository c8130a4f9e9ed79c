"""A throwaway Redis server: ``redis-server`` on a free loopback port, in a temp dir.

Used by the session-scoped ``redis_server`` fixture. Nothing is persisted
(no RDB, no AOF); the server's log and working files stay in its temp dir,
which ``stop()`` removes. Tests that need Redis to go away and come back
start their own with ``start_redis(port=...)``.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .servers import ServerUnavailableError, free_port, stop_server

START_TIMEOUT = 10.0


@dataclass
class RedisServer:
    """A running ``redis-server``; ``url()`` gives ``redis://`` URLs."""

    process: subprocess.Popen[bytes]
    base_dir: Path
    port: int
    host: str = "127.0.0.1"

    def url(self, db: int = 0) -> str:
        """The URL of database ``db`` on this server."""
        return f"redis://{self.host}:{self.port}/{db}"

    def stop(self) -> None:
        """Stop the server and delete its files."""
        stop_server(self.process, self.base_dir)


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def start_redis(port: int | None = None) -> RedisServer:
    """Start a server (on ``port``, else a free one); raises ``ServerUnavailableError``."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise ServerUnavailableError("redis-server not found; run scripts/ensure-services.sh")
    port = free_port() if port is None else port
    base = Path(tempfile.mkdtemp(prefix="steadyflow-redis-"))
    argv = [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(base)]
    argv += ["--save", "", "--appendonly", "no", "--daemonize", "no"]
    argv += ["--logfile", str(base / "redis.log")]
    try:
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError as exc:
        shutil.rmtree(base, ignore_errors=True)
        raise ServerUnavailableError(f"redis-server failed to start: {exc}") from exc
    server = RedisServer(process=process, base_dir=base, port=port)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        if _answers_ping(port):
            return server
        time.sleep(0.02)
    log_file = base / "redis.log"
    log = log_file.read_text(errors="replace")[-2000:] if log_file.exists() else ""
    server.stop()
    raise ServerUnavailableError(f"redis-server did not answer on port {port}; log:\n{log}")
