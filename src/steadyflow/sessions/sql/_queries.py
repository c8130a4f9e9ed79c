"""The statements the SQL session store runs, one function per question or change.

Kept apart from the service so the service reads as the sequence of steps
of each operation. Upserts use each dialect's ``ON CONFLICT`` clause
(SQLite and PostgreSQL spell it the same way in SQLAlchemy).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table, Text, cast, select, union_all
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

import steadyflow.sessions.sql._schema as tables

from ...errors import CorruptSessionError
from ...events import Event
from ._codec import decode_event
from ._key import SessionKey

__all__ = [
    "SessionRow",
    "insert_new",
    "load_events",
    "read_app_state",
    "read_session_row",
    "read_shared_state",
    "read_user_states",
    "session_filter",
    "upsert_state",
]


def session_filter(table: Table, key: SessionKey) -> Any:
    """The WHERE clause picking one session's rows in ``table``."""
    columns = table.c
    id_column = columns.id if table is tables.sessions else columns.session_id
    return (
        (columns.app_name == key.app_name)
        & (columns.user_id == key.user_id)
        & (id_column == key.session_id)
    )


@dataclass(frozen=True)
class SessionRow:
    """What a load needs of a session's row."""

    incarnation: str
    revision: int
    state: dict[str, Any]
    update_time: float


async def read_session_row(conn: AsyncConnection, key: SessionKey) -> SessionRow | None:
    """The session's row, or None when there is no such session."""
    sessions = tables.sessions
    columns = sessions.c
    query = select(columns.incarnation, columns.revision, columns.state, columns.update_time)
    row = (await conn.execute(query.where(session_filter(sessions, key)))).first()
    return None if row is None else SessionRow(*row)


async def load_events(
    conn: AsyncConnection, key: SessionKey, after: int, upto: int
) -> tuple[list[Event], int]:
    """Events with ``after < seq <= upto`` in order, in one query, and their JSON's size.

    Raises:
        CorruptSessionError: a row is not an event this version can read
            (its position in the session is named).
    """
    events, seq = tables.events, tables.events.c.seq
    query = (
        select(cast(events.c.data, Text))  # the JSON text: parsed once, by pydantic
        .where(session_filter(events, key) & (seq > after) & (seq <= upto))
        .order_by(seq)
    )
    texts = list((await conn.execute(query)).scalars())
    decoded: list[Event] = []
    for text in texts:  # one at a time: a bad row is named by its position
        try:
            decoded.append(decode_event(text))
        except (ValueError, TypeError, KeyError, RecursionError) as error:
            position = after + len(decoded) + 1
            reason = str(error).splitlines()[0][:200] if str(error) else type(error).__name__
            raise CorruptSessionError(
                key.app_name,
                key.user_id,
                key.session_id,
                f"event {position} is not an event: {reason}",
            ) from error
    return decoded, sum(len(text) for text in texts)


async def read_shared_state(conn: AsyncConnection, app_name: str, user_id: str) -> dict[str, Any]:
    """The app's ``app:`` keys and the user's ``user:`` keys, in one query."""
    app, user = tables.app_state.c, tables.user_state.c
    app_keys = select(app.key, app.value).where(app.app_name == app_name)
    user_keys = select(user.key, user.value).where(
        (user.app_name == app_name) & (user.user_id == user_id)
    )
    return {key: value for key, value in await conn.execute(union_all(app_keys, user_keys))}


async def read_app_state(conn: AsyncConnection, app_name: str) -> dict[str, Any]:
    """Every ``app:`` key of the app."""
    app = tables.app_state.c
    rows = await conn.execute(select(app.key, app.value).where(app.app_name == app_name))
    return {key: value for key, value in rows}


async def read_user_states(
    conn: AsyncConnection, app_name: str, user_ids: Sequence[str] | None
) -> dict[str, dict[str, Any]]:
    """``user:`` keys per user of the app (of ``user_ids`` when given)."""
    user = tables.user_state.c
    query = select(user.user_id, user.key, user.value).where(user.app_name == app_name)
    if user_ids is not None:
        query = query.where(user.user_id.in_(user_ids))
    states: dict[str, dict[str, Any]] = {}
    for user_id, key, value in await conn.execute(query):
        states.setdefault(user_id, {})[key] = value
    return states


async def insert_new(conn: AsyncConnection, table: Table, row: dict[str, Any]) -> bool:
    """Insert ``row`` unless its key (or a unique column set) exists; True when inserted."""
    stmt = _insert(conn, table).values(row).on_conflict_do_nothing()
    result = await conn.execute(stmt)
    return bool(result.rowcount)


async def upsert_state(
    conn: AsyncConnection, table: Table, owner: dict[str, str], state: dict[str, Any], now: float
) -> None:
    """Set ``state``'s keys for ``owner`` (the app, or the app's user), one row per key."""
    if not state:
        return
    # Sorted keys: two transactions upserting the same keys lock them in the
    # same order, so they queue on PostgreSQL instead of deadlocking.
    rows = [
        {**owner, "key": name, "value": state[name], "update_time": now} for name in sorted(state)
    ]
    stmt = _insert(conn, table).values(rows)
    stmt = stmt.on_conflict_do_update(
        index_elements=[column.name for column in table.primary_key.columns],
        set_={"value": stmt.excluded.value, "update_time": stmt.excluded.update_time},
    )
    await conn.execute(stmt)


def _insert(conn: AsyncConnection, table: Table) -> Any:
    if conn.dialect.name == "postgresql":
        return postgresql.insert(table)
    return sqlite.insert(table)
