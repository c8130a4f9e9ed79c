"""Upgrading a database written by an older schema version, once, when it is opened.

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
from sqlalchemy.ext.asyncio import AsyncConnection

import steadyflow.sessions.sql._schema as t

from ...trace_record import TRACE_AUTHOR, InvocationTrace, trace_of
from ..invocations import InvocationRecord, InvocationStatus
from . import _queries as q
from ._cache import SessionKey
from ._codec import decode_event
from ._invocations import record_row

__all__ = ["upgrade"]

_STATUS = {
    "ok": InvocationStatus.COMPLETED,
    "error": InvocationStatus.FAILED,
    "cancelled": InvocationStatus.CANCELLED,
    "running": InvocationStatus.INTERRUPTED,
}


async def upgrade(conn: AsyncConnection, version: int) -> None:
    """Bring a database at ``version`` up to the current schema (inside a write transaction)."""
    if version < 2:
        await _traces_to_records(conn)


def _record_of(key: SessionKey, trace: InvocationTrace) -> InvocationRecord:
    ended = None if trace.duration is None else trace.started_at + trace.duration
    return InvocationRecord(
        id=trace.invocation_id,
        app_name=key[0],
        user_id=key[1],
        session_id=key[2],
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
    e = t.events
    query = select(e.c.app_name, e.c.user_id, e.c.session_id, e.c.seq, cast(e.c.data, Text))
    rows = (await conn.execute(query.where(e.c.author == TRACE_AUTHOR))).all()
    touched: set[SessionKey] = set()
    for app_name, user_id, session_id, seq, text in rows:
        trace = trace_of(decode_event(text))
        if trace is None:  # an agent named "steadyflow": a real event
            continue
        key = (app_name, user_id, session_id)
        await q.insert_new(conn, t.invocations, record_row(_record_of(key, trace)))
        await conn.execute(e.delete().where(q.session_filter(e, key) & (e.c.seq == seq)))
        touched.add(key)
    for key in sorted(touched):
        await _renumber(conn, key)


async def _renumber(conn: AsyncConnection, key: SessionKey) -> None:
    """Number the session's events 1..n again, in order, and set its revision to n."""
    e, s = t.events, t.sessions
    seqs = (
        await conn.execute(select(e.c.seq).where(q.session_filter(e, key)).order_by(e.c.seq))
    ).scalars()
    count = 0
    for count, seq in enumerate(list(seqs), start=1):
        if seq != count:  # ascending: the number taken is always free by now
            where = q.session_filter(e, key) & (e.c.seq == seq)
            await conn.execute(update(e).where(where).values(seq=count))
    await conn.execute(update(s).where(q.session_filter(s, key)).values(revision=count))
