"""Upgrading a database written by an older schema version, once, when it is opened.

Version 2 to 3: the invocations table gains its ``usage`` column (the
spend table is created with the other missing tables).

Version 1 to 2: every invocation's trace was an event authored
``"steadyflow"`` (no content, the trace under ``custom_metadata``). Each
becomes the invocation's record (status from the trace: ok -> completed,
error -> failed, cancelled -> cancelled), then the event is deleted and the
session's remaining events are renumbered 1..n, so ``revision`` is again the
number of events. Nothing is lost: everything the trace event held is in the
record. It all runs inside the schema check's write transaction, so a
database is upgraded whole or not at all.
"""

from __future__ import annotations

from sqlalchemy import Text, cast, select, update
from sqlalchemy import text as sql
from sqlalchemy.ext.asyncio import AsyncConnection

import steadyflow.sessions.sql._schema as tables

from ...trace_record import TRACE_AUTHOR, InvocationTrace, trace_of
from ..invocations import InvocationRecord, InvocationStatus
from ._codec import decode_event
from ._invocations import record_row
from ._key import SessionKey
from ._queries import insert_new, session_filter

__all__ = ["upgrade"]

_STATUS = {
    "ok": InvocationStatus.COMPLETED,
    "error": InvocationStatus.FAILED,
    "cancelled": InvocationStatus.CANCELLED,
    "running": InvocationStatus.INTERRUPTED,
}


async def upgrade(conn: AsyncConnection, version: int) -> None:
    """Bring a database at ``version`` up to the current schema (inside a write transaction)."""
    if version == 2:  # the invocations table is there, without its usage column
        kind = "JSONB" if conn.dialect.name == "postgresql" else "JSON"
        await conn.execute(sql(f"ALTER TABLE {tables.invocations.name} ADD COLUMN usage {kind}"))
    if version < 2:
        await _traces_to_records(conn)


def _record_of(key: SessionKey, trace: InvocationTrace) -> InvocationRecord:
    ended = None if trace.duration is None else trace.started_at + trace.duration
    return InvocationRecord(
        id=trace.invocation_id,
        app_name=key.app_name,
        user_id=key.user_id,
        session_id=key.session_id,
        agent=trace.steps[0].agent if trace.steps else "",
        status=_STATUS[trace.status],
        started_at=trace.started_at,
        ended_at=ended,
        llm_calls=trace.budget_used,
        max_llm_calls=trace.budget_limit,
        error_type=trace.error_type,
        error_message=trace.error_message,
        trace=trace,
        revision=1,
    )


async def _traces_to_records(conn: AsyncConnection) -> None:
    events = tables.events
    columns = events.c
    query = select(
        columns.app_name, columns.user_id, columns.session_id, columns.seq, cast(columns.data, Text)
    ).where(columns.author == TRACE_AUTHOR)
    touched: set[SessionKey] = set()
    for app_name, user_id, session_id, seq, text in (await conn.execute(query)).all():
        trace = trace_of(decode_event(text))
        if trace is None:  # an agent named "steadyflow": a real event
            continue
        key = SessionKey(app_name, user_id, session_id)
        await insert_new(conn, tables.invocations, record_row(_record_of(key, trace)))
        await conn.execute(
            events.delete().where(session_filter(events, key) & (columns.seq == seq))
        )
        touched.add(key)
    for key in sorted(touched):
        await _renumber(conn, key)


async def _renumber(conn: AsyncConnection, key: SessionKey) -> None:
    """Number the session's events 1..n again, in order, and set its revision to n."""
    events, sessions = tables.events, tables.sessions
    in_session = session_filter(events, key)
    query = select(events.c.seq).where(in_session).order_by(events.c.seq)
    seqs = list((await conn.execute(query)).scalars())
    count = 0
    for count, seq in enumerate(seqs, start=1):
        if seq != count:  # ascending: the number taken is always free by now
            where = in_session & (events.c.seq == seq)
            await conn.execute(update(events).where(where).values(seq=count))
    in_row = session_filter(sessions, key)
    await conn.execute(update(sessions).where(in_row).values(revision=count))
