"""The statements of one ``append_event`` transaction: the guarded revision bump and shared state.

``SqlSessionService`` opens the transaction, checks the event's size and
keeps its cache; this module holds what runs inside: the revision-guarded
update of the session row (and why it was refused when it was), and the
upserts of the ``app:``/``user:`` state keys.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncConnection

import steadyflow.sessions.sql._schema as tables

from ...errors import SessionError, StaleSessionError
from ...events import Event
from ..base import Session
from . import _queries as queries
from ._key import SessionKey

__all__ = ["advance", "write_shared_state"]


async def advance(
    conn: AsyncConnection, session: Session, event: Event, delta: dict[str, Any]
) -> str | None:
    """Bump the revision if it is the copy's; returns the incarnation, None if a duplicate."""
    sessions = tables.sessions
    key = SessionKey(session.app_name, session.user_id, session.id)
    in_row = queries.session_filter(sessions, key)
    revision = sessions.c.revision
    bump = update(sessions).where(in_row & (revision == session.revision))
    bump = bump.values(revision=revision + 1, update_time=event.timestamp)
    bump = bump.returning(sessions.c.incarnation, sessions.c.state)
    row = (await conn.execute(bump)).first()
    if row is None:
        await _refuse(conn, key, session.revision, event.id)
        return None
    if delta:
        new_state = {**row.state, **delta}
        await conn.execute(update(sessions).where(in_row).values(state=new_state))
    incarnation: str = row.incarnation
    return incarnation


async def _refuse(conn: AsyncConnection, key: SessionKey, expected: int, event_id: str) -> None:
    """Explain a failed revision guard: deleted, stale, or (returns) a duplicate."""
    current = await queries.read_session_row(conn, key)
    if current is None:
        raise SessionError(f"session {key.session_id!r} was deleted; cannot append to it")
    events = tables.events
    same_id = queries.session_filter(events, key) & (events.c.id == event_id)
    if (await conn.execute(events.select().where(same_id))).first() is None:
        raise StaleSessionError(key.session_id, expected, current.revision)


async def write_shared_state(
    conn: AsyncConnection,
    key: SessionKey,
    app: dict[str, Any],
    user: dict[str, Any],
    now: float,
) -> None:
    """Upsert the ``app:`` and ``user:`` keys of ``key``'s app and user."""
    await queries.upsert_state(conn, tables.app_state, {"app_name": key.app_name}, app, now)
    owner = {"app_name": key.app_name, "user_id": key.user_id}
    await queries.upsert_state(conn, tables.user_state, owner, user, now)
