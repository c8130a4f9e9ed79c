"""Invocation records to rows and back, and the statements that read and write them.

A record's writes are guarded by its own ``revision`` column
(``UPDATE ... WHERE revision = <the writer's>``), never by the session's:
storing a finished turn's record cannot be refused because another turn
appended to the session meanwhile, and two processes claiming the same
invocation cannot both succeed.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

import steadyflow.sessions.sql._schema as tables

from ...errors import SessionError, StaleInvocationError
from ...trace_record._schema import InvocationTrace
from ..invocations import FINAL_STATUSES, InvocationOwner, InvocationRecord, InvocationStatus
from ._codec import encode_state
from ._key import SessionKey
from ._queries import insert_new, session_filter

__all__ = ["load_record", "load_records", "load_unfinished", "put_record", "record_row"]


def record_row(record: InvocationRecord) -> dict[str, Any]:
    """The ``invocations`` row of ``record`` (its revision as given)."""
    owner = record.owner
    return {
        "app_name": record.app_name,
        "user_id": record.user_id,
        "session_id": record.session_id,
        "id": record.id,
        "agent": record.agent,
        "status": record.status.value,
        "started_at": record.started_at,
        "ended_at": record.ended_at,
        "llm_calls": record.llm_calls,
        "max_llm_calls": record.max_llm_calls,
        "error_type": record.error_type,
        "error_message": record.error_message,
        "trace": None if record.trace is None else record.trace.to_json(),
        "owner_host": None if owner is None else owner.host,
        "owner_pid": None if owner is None else owner.pid,
        "owner_started_at": None if owner is None else owner.started_at,
        "lease_expires_at": record.lease_expires_at,
        "resume_count": record.resume_count,
        "journal": encode_state(record.journal),
        "revision": record.revision,
        "usage": record.usage or None,
    }


def _record(row: Row[Any]) -> InvocationRecord:
    owner = None
    if row.owner_host is not None:
        owner = InvocationOwner(row.owner_host, int(row.owner_pid), float(row.owner_started_at))
    return InvocationRecord(
        id=row.id,
        app_name=row.app_name,
        user_id=row.user_id,
        session_id=row.session_id,
        agent=row.agent,
        status=InvocationStatus(row.status),
        started_at=row.started_at,
        ended_at=row.ended_at,
        llm_calls=row.llm_calls,
        max_llm_calls=row.max_llm_calls,
        error_type=row.error_type,
        error_message=row.error_message,
        trace=None if row.trace is None else InvocationTrace.from_stored(row.trace),
        owner=owner,
        lease_expires_at=row.lease_expires_at,
        resume_count=row.resume_count,
        journal=dict(row.journal),
        revision=row.revision,
        usage=dict(row.usage or {}),
    )


async def put_record(conn: AsyncConnection, record: InvocationRecord) -> None:
    """Insert a new record (``revision`` 0) or write it over its stored revision.

    The stored row ends at ``record.revision + 1``; the caller bumps the
    record once the transaction commits.

    Raises:
        SessionError: a new record's id is taken.
        StaleInvocationError: the row moved on (or is gone); nothing written.
    """
    invocations = tables.invocations
    row = record_row(record)
    row["revision"] = record.revision + 1
    if record.revision == 0:
        if not await insert_new(conn, invocations, row):
            raise SessionError(f"invocation {record.id!r} already exists")
        return
    key = SessionKey(record.app_name, record.user_id, record.session_id)
    columns = invocations.c
    guard = (
        session_filter(invocations, key)
        & (columns.id == record.id)
        & (columns.revision == record.revision)
    )
    result = await conn.execute(update(invocations).where(guard).values(row))
    if not result.rowcount:
        raise StaleInvocationError(record.id, record.revision)


async def load_record(
    conn: AsyncConnection, key: SessionKey, invocation_id: str
) -> InvocationRecord | None:
    """One record of the session ``key``, or None."""
    invocations = tables.invocations
    query = select(invocations).where(
        session_filter(invocations, key) & (invocations.c.id == invocation_id)
    )
    row = (await conn.execute(query)).first()
    return None if row is None else _record(row)


async def load_records(conn: AsyncConnection, key: SessionKey) -> list[InvocationRecord]:
    """The session's records, oldest first."""
    invocations = tables.invocations
    query = (
        select(invocations)
        .where(session_filter(invocations, key))
        .order_by(invocations.c.started_at, invocations.c.id)
    )
    return [_record(row) for row in await conn.execute(query)]


async def load_unfinished(conn: AsyncConnection, app_name: str) -> list[InvocationRecord]:
    """The app's records that are not over, in every session, oldest first."""
    invocations = tables.invocations
    columns = invocations.c
    unfinished = [status.value for status in InvocationStatus if status not in FINAL_STATUSES]
    query = (
        select(invocations)
        .where((columns.app_name == app_name) & columns.status.in_(unfinished))
        .order_by(columns.started_at, columns.id)
    )
    return [_record(row) for row in await conn.execute(query)]
