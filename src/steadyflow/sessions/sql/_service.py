"""``SqlSessionService``: sessions in SQLite or PostgreSQL, safe across crashes and processes.

Each ``append_event`` is one transaction: a revision-guarded update of the
session row (``WHERE revision = <the caller's>``), the event row, and the
``app:``/``user:`` state keys. It commits all of that or nothing, and the
commit is durable before the method returns. A copy that fell behind the
database gets ``StaleSessionError``; the same event id twice is stored once.

Loads are cheap on long sessions: all events come in one query, and a
per-service cache (see ``_cache``) means a session loaded before costs one
small query plus the events appended since.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

import steadyflow.sessions.sql._schema as tables

from ..._redact import redact_url
from ...errors import EventTooLargeError, SessionError
from ...events import Event
from ..base import BaseSessionService, Session, apply_event_locally, event_as_stored
from ..invocations import InvocationRecord, UnfinishedInvocations
from ..state import split_delta
from . import _queries as queries
from ._append import advance, write_shared_state
from ._cache import DEFAULT_CACHE_MAX_BYTES, EventCache
from ._codec import encode_event, encode_state, encoded_size
from ._engine import WRITE, create_engine, make_folder, normalize_url
from ._failures import store_failures
from ._invocations import load_record, load_records, load_unfinished, put_record
from ._key import SessionKey

if TYPE_CHECKING:
    from ._spend import SqlSpendStore

__all__ = ["DEFAULT_MAX_EVENT_BYTES", "SqlSessionService"]

DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
"""The largest event the SQL store keeps by default: 16 MiB of JSON."""


class SqlSessionService(BaseSessionService):
    """Sessions in a SQL database: ``sqlite+aiosqlite:///path`` or ``postgresql+asyncpg://...``.

    Tables are created on first use. Use one service per process and event
    loop and share it between runners; ``close()`` releases its connections.

    Args:
        url: the database URL; ``sqlite:///`` and ``postgresql://`` get their
            async driver filled in. A SQLite file's folder is created on
            first use.
        cache_max_events: how many loaded events to keep in memory across
            sessions (0 turns the cache off).
        cache_max_bytes: how many bytes of events (as stored JSON) the
            cache keeps across sessions; default 64 MiB.
        max_event_bytes: the largest event stored, as JSON; a larger one
            raises ``EventTooLargeError`` and nothing is stored. Default
            16 MiB.
    """

    def __init__(
        self,
        url: str | URL,
        *,
        cache_max_events: int = 100_000,
        cache_max_bytes: int = DEFAULT_CACHE_MAX_BYTES,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    ) -> None:
        if max_event_bytes < 1:
            raise ValueError(f"max_event_bytes must be >= 1, got {max_event_bytes}")
        self._url = normalize_url(url)
        self._engine = create_engine(self._url)
        self._cache = EventCache(cache_max_events, cache_max_bytes)
        self.max_event_bytes = max_event_bytes
        self._ready = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready_lock = asyncio.Lock()
        self._spend: SqlSpendStore | None = None

    def __repr__(self) -> str:
        return f"SqlSessionService({self.where!r})"

    @property
    def where(self) -> str:
        """The database URL with its credentials masked, for logs and errors."""
        return redact_url(self._url.render_as_string(hide_password=False))

    def spend_store(self) -> SqlSpendStore:
        """The spend store in this database (``RunConfig.spend_limits``; one per service)."""
        if self._spend is None:
            from ._spend import SqlSpendStore

            self._spend = SqlSpendStore(self._read, self._write)
        return self._spend

    @property
    def engine(self) -> AsyncEngine:
        """The SQLAlchemy engine (to inspect or share the database)."""
        return self._engine

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        """Create a session; an existing ``session_id`` is an error."""
        key = SessionKey(app_name, user_id, session_id or uuid.uuid4().hex)
        scoped = split_delta(encode_state(state or {}))
        now = time.time()
        incarnation = uuid.uuid4().hex
        row = {
            "app_name": app_name,
            "user_id": user_id,
            "id": key.session_id,
            "incarnation": incarnation,
            "state": scoped.session,
            "revision": 0,
            "create_time": now,
            "update_time": now,
        }
        async with self._write("create a session") as conn:
            if not await queries.insert_new(conn, tables.sessions, row):
                raise SessionError(f"session {row['id']!r} already exists for app {app_name!r}")
            await write_shared_state(conn, key, scoped.app, scoped.user, now)
            shared = await queries.read_shared_state(conn, app_name, user_id)
        self._cache.store(key, incarnation, [])
        return _session(key, {**scoped.session, **shared}, [], now, 0)

    async def get_session(self, *, app_name: str, user_id: str, session_id: str) -> Session | None:
        """Load a session with its events, or None when there is none."""
        key = SessionKey(app_name, user_id, session_id)
        async with self._read("load a session") as conn:
            row = await queries.read_session_row(conn, key)
            if row is None:
                self._cache.drop(key)
                return None
            cached = self._cache.lookup(key, row.incarnation, row.revision)
            events = list(cached.events) if cached is not None else []
            size = cached.size if cached is not None else 0
            behind = len(events) < row.revision
            if behind:  # read only what the cache has not seen
                loaded, extra = await queries.load_events(conn, key, len(events), row.revision)
                events += loaded
                size += extra
            shared = await queries.read_shared_state(conn, app_name, user_id)
        if cached is None or behind:
            self._cache.store(key, row.incarnation, list(events), size)
        return _session(key, {**row.state, **shared}, events, row.update_time, row.revision)

    async def list_sessions(self, *, app_name: str, user_id: str | None = None) -> list[Session]:
        """The app's sessions (of one user when given), without their events."""
        columns = tables.sessions.c
        query = tables.sessions.select().where(columns.app_name == app_name)
        query = query.order_by(columns.create_time, columns.id)
        if user_id is not None:
            query = query.where(columns.user_id == user_id)
        async with self._read("list sessions") as conn:
            rows = (await conn.execute(query)).all()
            app_state = await queries.read_app_state(conn, app_name)
            users = None if user_id is None else [user_id]
            user_states = await queries.read_user_states(conn, app_name, users)
        return [
            _session(
                SessionKey(app_name, row.user_id, row.id),
                {**row.state, **app_state, **user_states.get(row.user_id, {})},
                [],
                row.update_time,
                row.revision,
            )
            for row in rows
        ]

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        """Delete a session and its events (no error when absent)."""
        key = SessionKey(app_name, user_id, session_id)
        async with self._write("delete a session") as conn:
            for table in (tables.events, tables.invocations, tables.sessions):
                await conn.execute(table.delete().where(queries.session_filter(table, key)))
        self._cache.drop(key)

    async def append_event(self, session: Session, event: Event) -> Event:
        """Store ``event`` and apply its state delta, then update ``session``.

        Raises:
            StaleSessionError: another writer appended since ``session`` was
                loaded; nothing was stored.
            SessionError: the session was deleted, or a state value is not JSON.
            SessionStoreError: the database failed (read-only, full, gone);
                nothing was stored.
            EventTooLargeError: the event's JSON is over ``max_event_bytes``.
        """
        if event.partial:
            return event
        return await self._append(session, event, None)

    async def _append(
        self, session: Session, event: Event, record: InvocationRecord | None
    ) -> Event:
        """Store ``event`` (and write ``record`` when given) in one transaction."""
        stored = event_as_stored(event)
        scoped = split_delta(encode_state(stored.actions.state_delta))
        data = encode_event(stored)
        size = encoded_size(data)
        if size > self.max_event_bytes:
            raise EventTooLargeError(event.id, size, self.max_event_bytes)
        key = SessionKey(session.app_name, session.user_id, session.id)
        async with self._write("append an event") as conn:
            if record is not None:
                await put_record(conn, record)
            incarnation = await advance(conn, session, stored, scoped.session)
            if incarnation is not None and not await queries.insert_new(
                conn, tables.events, tables.event_row(key, session.revision + 1, stored, data)
            ):
                await conn.rollback()  # the id is stored at another place: nothing changes
                return event
            if incarnation is not None:
                await write_shared_state(conn, key, scoped.app, scoped.user, stored.timestamp)
        if record is not None:
            record.revision += 1
        if incarnation is None:
            return event  # stored before: appending it again changes nothing
        self._cache.extend(key, incarnation, session.revision, stored, size)
        return apply_event_locally(session, event)

    async def create_invocation(self, record: InvocationRecord) -> None:
        """Store a new invocation record and set its ``revision`` to 1.

        Raises:
            SessionError: its session does not exist, or the id is taken.
        """
        key = SessionKey(record.app_name, record.user_id, record.session_id)
        async with self._write("create an invocation record") as conn:
            if await queries.read_session_row(conn, key) is None:
                raise SessionError(f"session {record.session_id!r} does not exist")
            await put_record(conn, record)
        record.revision += 1

    async def update_invocation(self, record: InvocationRecord) -> None:
        """Store ``record`` if the stored one is at ``record.revision``; bump it.

        Raises:
            StaleInvocationError: another writer stored it first; nothing was written.
        """
        async with self._write("store an invocation record") as conn:
            await put_record(conn, record)
        record.revision += 1

    async def append_event_and_record(
        self, session: Session, event: Event, record: InvocationRecord
    ) -> Event:
        """``append_event`` and a write of ``record``, in one transaction (one commit).

        Raises:
            StaleSessionError / StaleInvocationError: either guard refused;
                nothing was stored.
            EventTooLargeError: the event's JSON is over ``max_event_bytes``.
        """
        return await self._append(session, event, record)

    async def get_invocation(
        self, *, app_name: str, user_id: str, session_id: str, invocation_id: str
    ) -> InvocationRecord | None:
        """One invocation record of a session, or None when there is none."""
        async with self._read("load an invocation record") as conn:
            return await load_record(conn, SessionKey(app_name, user_id, session_id), invocation_id)

    async def list_invocations(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> list[InvocationRecord]:
        """A session's invocation records, oldest first."""
        async with self._read("list invocation records") as conn:
            return await load_records(conn, SessionKey(app_name, user_id, session_id))

    async def find_unfinished_invocations(self, *, app_name: str) -> UnfinishedInvocations:
        """The app's unfinished invocations across its sessions (one query); bad rows apart."""
        async with self._read("list unfinished invocations") as conn:
            return await load_unfinished(conn, app_name)

    async def close(self) -> None:
        """Close the database connections (the service stays usable)."""
        await self._engine.dispose()
        self._loop = None

    @asynccontextmanager
    async def _read(self, action: str) -> AsyncGenerator[AsyncConnection, None]:
        with store_failures(self.where, action):
            await self._ensure_schema()
            async with self._transaction(write=False) as conn:
                yield conn

    @asynccontextmanager
    async def _write(self, action: str) -> AsyncGenerator[AsyncConnection, None]:
        """A write transaction: committed whole, or rolled back and ``SessionStoreError``."""
        with store_failures(self.where, action):
            await self._ensure_schema()
            async with self._transaction(write=True) as conn:
                yield conn

    @asynccontextmanager
    async def _transaction(self, *, write: bool) -> AsyncGenerator[AsyncConnection, None]:
        async with self._engine.connect() as conn:
            if write:
                await conn.execution_options(**{WRITE: True})
            async with conn.begin():
                yield conn

    async def _ensure_schema(self) -> None:
        self._follow_event_loop()
        if self._ready:
            return
        async with self._ready_lock:
            if not self._ready:
                make_folder(self._url)
                where = self.where
                async with self._transaction(write=False) as conn:
                    ready = await tables.schema_ready(conn, where)
                if not ready:
                    async with self._transaction(write=True) as conn:
                        await tables.ensure_schema(conn, where)
                self._ready = True

    def _follow_event_loop(self) -> None:
        """Start a new connection pool when called from a new event loop.

        asyncpg connections belong to the loop that opened them, so a service
        used by successive ``asyncio.run`` calls needs fresh ones; the old
        loop's connections are dropped unclosed (``close()`` before the loop
        ends avoids that). aiosqlite connections work from any loop and are
        kept: dropping them would leave their threads running.
        """
        loop = asyncio.get_running_loop()
        if loop is self._loop:
            return
        if self._loop is not None and self._engine.dialect.name != "sqlite":
            self._engine.sync_engine.dispose(close=False)
        self._loop = loop
        self._ready_lock = asyncio.Lock()


def _session(
    key: SessionKey, state: dict[str, Any], events: list[Event], updated: float, revision: int
) -> Session:
    app_name, user_id, session_id = key
    return Session.model_construct(
        id=session_id,
        app_name=app_name,
        user_id=user_id,
        state=state,
        events=events,
        last_update_time=updated,
        revision=revision,
    )
