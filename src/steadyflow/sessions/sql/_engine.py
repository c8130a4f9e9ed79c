"""Which database URLs the SQL store takes, and how its engines are set up.

SQLite (``aiosqlite``) is the embedded default; PostgreSQL (``asyncpg``)
serves many processes and hosts. Plain ``sqlite:///`` and ``postgresql://``
URLs get the async driver filled in; any other driver is refused.

SQLite settings, chosen for crash safety:

- ``journal_mode=WAL``: a commit appends to the write-ahead log, so a
  process killed mid-write (even ``SIGKILL``) leaves the last commit intact
  and the half-written transaction invisible; readers never block writers.
- ``synchronous=FULL``: the log is fsynced at every commit, so an event is
  on disk when ``append_event`` returns and survives power loss and OS
  crashes too. ``NORMAL`` would survive a killed process, but could lose the
  last commits on power loss, breaking the promise that a yielded event is
  stored; the cost is one fsync per append.
- Writes begin with ``BEGIN IMMEDIATE``: the write lock is taken up front,
  so concurrent writers wait their turn (``busy_timeout``) instead of
  failing on an upgraded read lock.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from ...errors import ConfigurationError

__all__ = ["WRITE", "create_engine", "make_folder", "normalize_url"]

WRITE = "steadyflow_write"
"""Execution option marking a write transaction (SQLite: ``BEGIN IMMEDIATE``)."""

_DRIVERS = {
    "sqlite": "sqlite+aiosqlite",
    "sqlite+aiosqlite": "sqlite+aiosqlite",
    "postgresql": "postgresql+asyncpg",
    "postgres": "postgresql+asyncpg",
    "postgresql+asyncpg": "postgresql+asyncpg",
}
_BUSY_TIMEOUT_SECONDS = 30.0


def normalize_url(url: str | URL) -> URL:
    """``url`` with its async driver; ``ConfigurationError`` names a bad URL."""
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise ConfigurationError(f"session database URL {str(url)!r} is not a URL") from exc
    driver = _DRIVERS.get(parsed.drivername)
    if driver is None:
        raise ConfigurationError(
            f"session database URL {parsed.render_as_string()!r}: unsupported driver "
            f"{parsed.drivername!r}; use sqlite+aiosqlite:///path or postgresql+asyncpg://..."
        )
    parsed = parsed.set(drivername=driver)
    if driver.startswith("sqlite") and parsed.database in (None, "", ":memory:"):
        raise ConfigurationError(
            "session database URL needs a file path (sqlite:///path/to/sessions.db); "
            "for sessions kept in memory use memory://"
        )
    return parsed


def make_folder(url: URL) -> None:
    """Create the folder of a SQLite file (no-op for other databases)."""
    if url.drivername.startswith("sqlite") and url.database:
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)


def create_engine(url: URL) -> AsyncEngine:
    """An engine for ``url`` (already normalized); connects on first use."""
    if url.drivername.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": _BUSY_TIMEOUT_SECONDS})
        _setup_sqlite(engine)
        return engine
    return create_async_engine(url)


def _setup_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control from the driver so BEGIN is ours (and DDL is
        # transactional): SQLAlchemy's documented recipe for (aio)sqlite.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute(f"PRAGMA busy_timeout={int(_BUSY_TIMEOUT_SECONDS * 1000)}")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def on_begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get(WRITE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
