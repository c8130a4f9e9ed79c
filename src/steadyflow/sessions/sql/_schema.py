"""The session store's tables, its schema version, and creating them on first use.

Tables are prefixed ``steadyflow_`` so they can share a database with an
application's own tables.

- ``steadyflow_sessions``: one row per session with its own (unprefixed)
  state, its ``revision`` (the number of events appended) and an
  ``incarnation`` token that tells a session apart from a deleted one that
  had the same id.
- ``steadyflow_events``: one row per event, ``seq`` = the session's revision
  right after the append (1, 2, ...), the event as a JSON document.
- ``steadyflow_app_state`` / ``steadyflow_user_state``: one row per key, so
  sessions writing different ``app:``/``user:`` keys at once never overwrite
  each other (an upsert per key, no read-modify-write).
- ``steadyflow_invocations``: one row per invocation record (status,
  budget, owner and lease, the trace as JSON text, the tool journal), keyed
  by the session and the invocation id; ``revision`` guards its writes.
- ``steadyflow_spend``: one row per model attempt under a spend limit
  (``steadyflow.usage.spend``): who, which model, when, its cost in
  nanodollars and tokens, ``reserved`` until the attempt ends, then
  ``charged``.
- ``steadyflow_schema``: one row holding the schema version.

Version 2 added the invocations table; version 3 the invocations' ``usage``
column (tokens and cost so far) and the ``steadyflow_spend`` table (spend
limits' charges, ``steadyflow.usage``). An older database is upgraded when
first opened (``_migrate``): version 1's trace events move into records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Double,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    inspect,
    select,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection

from ...errors import SchemaVersionError

if TYPE_CHECKING:
    from ...events import Event
    from ._key import SessionKey

__all__ = [
    "SCHEMA_VERSION",
    "app_state",
    "ensure_schema",
    "schema_ready",
    "event_row",
    "events",
    "invocations",
    "metadata",
    "schema",
    "sessions",
    "spend",
    "user_state",
]

SCHEMA_VERSION = 3
"""The version this code writes; a database with a higher one is refused."""

metadata = MetaData()
_JSON = JSON().with_variant(JSONB(), "postgresql")

sessions = Table(
    "steadyflow_sessions",
    metadata,
    Column("app_name", String, primary_key=True),
    Column("user_id", String, primary_key=True),
    Column("id", String, primary_key=True),
    Column("incarnation", String, nullable=False),
    Column("state", _JSON, nullable=False),
    Column("revision", Integer, nullable=False),
    Column("create_time", Double, nullable=False),
    Column("update_time", Double, nullable=False),
)

events = Table(
    "steadyflow_events",
    metadata,
    Column("app_name", String, primary_key=True),
    Column("user_id", String, primary_key=True),
    Column("session_id", String, primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("id", String, nullable=False),
    Column("invocation_id", String, nullable=False),
    Column("author", String, nullable=False),
    Column("timestamp", Double, nullable=False),
    Column("data", _JSON, nullable=False),
    UniqueConstraint("app_name", "user_id", "session_id", "id", name="steadyflow_events_event_id"),
)


def event_row(key: SessionKey, seq: int, event: Event, data: Any) -> dict[str, Any]:
    """The ``events`` row of ``event`` (``data``: its encoded JSON) in session ``key``."""
    return {
        "app_name": key.app_name,
        "user_id": key.user_id,
        "session_id": key.session_id,
        "seq": seq,
        "id": event.id,
        "invocation_id": event.invocation_id,
        "author": event.author,
        "timestamp": event.timestamp,
        "data": data,
    }


app_state = Table(
    "steadyflow_app_state",
    metadata,
    Column("app_name", String, primary_key=True),
    Column("key", String, primary_key=True),
    Column("value", _JSON, nullable=False),
    Column("update_time", Double, nullable=False),
)

user_state = Table(
    "steadyflow_user_state",
    metadata,
    Column("app_name", String, primary_key=True),
    Column("user_id", String, primary_key=True),
    Column("key", String, primary_key=True),
    Column("value", _JSON, nullable=False),
    Column("update_time", Double, nullable=False),
)

invocations = Table(
    "steadyflow_invocations",
    metadata,
    Column("app_name", String, primary_key=True),
    Column("user_id", String, primary_key=True),
    Column("session_id", String, primary_key=True),
    Column("id", String, primary_key=True),
    Column("agent", String, nullable=False),
    Column("status", String, nullable=False),
    Column("started_at", Double, nullable=False),
    Column("ended_at", Double),
    Column("llm_calls", Integer, nullable=False),
    Column("max_llm_calls", Integer, nullable=False),
    Column("error_type", String),
    Column("error_message", Text),
    Column("trace", Text),
    Column("owner_host", String),
    Column("owner_pid", Integer),
    Column("owner_started_at", Double),
    Column("lease_expires_at", Double),
    Column("resume_count", Integer, nullable=False),
    Column("journal", _JSON, nullable=False),
    Column("revision", Integer, nullable=False),
    Column("usage", _JSON),
    Index("steadyflow_invocations_status", "status"),
)

spend = Table(
    "steadyflow_spend",
    metadata,
    Column("id", String, primary_key=True),
    Column("app_name", String, nullable=False),
    Column("user_id", String, nullable=False),
    Column("session_id", String, nullable=False),
    Column("invocation_id", String, nullable=False),
    Column("model", String, nullable=False),
    Column("at", Double, nullable=False),
    Column("cost_nano", BigInteger, nullable=False),
    Column("tokens", BigInteger, nullable=False),
    Column("state", String, nullable=False),
    Column("expires_at", Double),
    Index("steadyflow_spend_user", "app_name", "user_id", "at"),
    Index("steadyflow_spend_app", "app_name", "at"),
)

schema = Table(
    "steadyflow_schema",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("version", Integer, nullable=False),
)


async def ensure_schema(conn: AsyncConnection, where: str) -> None:
    """Create the tables when missing; refuse a database from a newer schema.

    Runs inside the caller's write transaction. On PostgreSQL an advisory
    lock makes processes that start together create the tables once; on
    SQLite the write transaction's lock does the same.
    """
    if conn.dialect.name == "postgresql":
        await conn.execute(text("SELECT pg_advisory_xact_lock(hashtext('steadyflow_schema'))"))
    if not await schema_ready(conn, where):
        await _create_or_upgrade(conn)


async def _create_or_upgrade(conn: AsyncConnection) -> None:
    """Create the tables, or upgrade a database of an older version (lock held)."""
    version = await _stored_version(conn)
    if version is None:
        await conn.run_sync(metadata.create_all)
        await conn.execute(schema.insert().values(id=1, version=SCHEMA_VERSION))
    elif version < SCHEMA_VERSION:
        from ._migrate import upgrade  # only old databases need it

        await conn.run_sync(metadata.create_all)  # the tables this version added
        await upgrade(conn, version)
        await conn.execute(schema.update().where(schema.c.id == 1).values(version=SCHEMA_VERSION))


async def schema_ready(conn: AsyncConnection, where: str) -> bool:
    """Whether the tables exist at this version, read only (a read-only database can be read).

    Raises:
        SchemaVersionError: the database is from a newer schema.
    """
    version = await _stored_version(conn)
    if version is not None and version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"session database {where} has schema version {version}, but this steadyflow "
            f"knows versions up to {SCHEMA_VERSION}; upgrade steadyflow to use it"
        )
    return version == SCHEMA_VERSION


async def _stored_version(conn: AsyncConnection) -> int | None:
    def has_table(sync_conn: Connection) -> bool:
        return inspect(sync_conn).has_table(schema.name)

    if not await conn.run_sync(has_table):
        return None
    version = (await conn.execute(select(schema.c.version).where(schema.c.id == 1))).scalar()
    return None if version is None else int(version)
