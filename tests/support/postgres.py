"""A throwaway PostgreSQL server: ``initdb`` + ``pg_ctl`` in a temp dir, on loopback.

Used by the session-scoped ``postgres_server`` fixture and by the session
benchmark. The server runs as an unprivileged user (PostgreSQL refuses root),
listens on a free 127.0.0.1 port with trust authentication, keeps its socket
and data in its temp dir, and is removed on ``stop()``.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .servers import ServerUnavailableError, free_port, give_to, run_as, unprivileged_user

SUPERUSER = "steadyflow"
_BINARIES = ("initdb", "pg_ctl", "postgres", "psql")


@dataclass
class PostgresServer:
    """A running server; ``url()`` gives SQLAlchemy URLs, ``create_database()`` fresh DBs."""

    bin_dir: Path
    base_dir: Path
    port: int
    user: str | None
    host: str = "127.0.0.1"
    _counter: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _test_database: str | None = None

    def url(self, database: str = "postgres", driver: str = "postgresql+asyncpg") -> str:
        """A URL for ``database`` on this server."""
        return f"{driver}://{SUPERUSER}@{self.host}:{self.port}/{database}"

    def psql(self, sql: str, database: str = "postgres") -> str:
        """Run one SQL command with ``psql``; returns its unaligned output."""
        argv = [str(self.bin_dir / "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]
        argv += ["-h", self.host, "-p", str(self.port), "-U", SUPERUSER, "-d", database, "-c", sql]
        return run_as(self.user, argv)

    def create_database(self) -> str:
        """Create an empty database; returns its asyncpg URL."""
        name = f"test_{os.getpid()}_{next(self._counter)}"
        self.psql(f"CREATE DATABASE {name}")
        return self.url(name)

    def emptied_database(self) -> str:
        """The URL of the shared test database, emptied first (faster than a new one).

        Emptying drops the ``public`` schema with everything in it; callers
        must have closed their connections to it (as fixtures do on teardown).
        """
        if self._test_database is None:
            self._test_database = self.create_database().rsplit("/", 1)[1]
        else:
            reset = "DROP SCHEMA public CASCADE; CREATE SCHEMA public"
            self.psql(reset, database=self._test_database)
        return self.url(self._test_database)

    def stop(self) -> None:
        """Stop the server and delete its files."""
        try:
            pg_ctl = str(self.bin_dir / "pg_ctl")
            run_as(self.user, [pg_ctl, "stop", "-D", self._data, "-m", "immediate"])
        finally:
            shutil.rmtree(self.base_dir, ignore_errors=True)

    @property
    def _data(self) -> str:
        return str(self.base_dir / "data")


def find_bin_dir() -> Path:
    """The directory holding initdb, pg_ctl, postgres and psql (newest version first)."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version, reverse=True)
    on_path = shutil.which("initdb")
    if on_path:
        candidates.insert(0, str(Path(on_path).resolve().parent))
    for directory in candidates:
        if all((Path(directory) / name).exists() for name in _BINARIES):
            return Path(directory)
    raise ServerUnavailableError(
        "PostgreSQL binaries not found (initdb, pg_ctl); run scripts/ensure-services.sh"
    )


def start_postgres(*, durable: bool = False) -> PostgresServer:
    """Initialize and start a server; raises ``ServerUnavailableError`` when it cannot.

    Args:
        durable: keep fsync on (benchmarks). Tests turn it off: they never
            crash the PostgreSQL server itself, and fsync only slows them.
    """
    bin_dir = find_bin_dir()
    user = unprivileged_user()
    base = Path(tempfile.mkdtemp(prefix="steadyflow-pg-"))
    try:
        give_to(str(base), user)
        data = str(base / "data")
        initdb = [str(bin_dir / "initdb"), "-D", data, "-U", SUPERUSER, "--auth=trust"]
        run_as(user, [*initdb, "-E", "UTF8", "--locale=C", "--no-sync"], timeout=120)
        return _start(bin_dir, base, user, durable)
    except BaseException:
        shutil.rmtree(base, ignore_errors=True)
        raise


def _start(bin_dir: Path, base: Path, user: str | None, durable: bool) -> PostgresServer:
    options = f"-c listen_addresses=127.0.0.1 -k {base} -c max_connections=100"
    if not durable:
        options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    last_error: ServerUnavailableError | None = None
    for _ in range(3):  # another process may take the free port before the server binds it
        port = free_port()
        argv = [str(bin_dir / "pg_ctl"), "start", "-w", "-t", "60", "-D", str(base / "data")]
        argv += ["-l", str(base / "server.log"), "-o", f"{options} -p {port}"]
        try:
            run_as(user, argv, timeout=90)
        except ServerUnavailableError as exc:
            last_error = exc
            continue
        return PostgresServer(bin_dir=bin_dir, base_dir=base, port=port, user=user)
    log = (base / "server.log").read_text(errors="replace")[-2000:]
    raise ServerUnavailableError(f"{last_error}; server log:\n{log}")


def _version(directory: str) -> tuple[int, ...]:
    name = Path(directory).parent.name
    return tuple(int(p) for p in name.split(".") if p.isdigit())
