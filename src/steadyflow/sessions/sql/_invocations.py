"""Invocation records to rows and back, and the statements that read and write them.

A record that cannot be read (a JSON column that is not JSON or not an
object, an unknown status, a negative counter) raises ``CorruptRecordError``
naming it; listing the app's unfinished records skips such rows and reports
them, reading the rest row by row when the database driver cannot decode a
column (one query otherwise).

A record's writes are guarded by its own ``revision`` column
(``UPDATE ... WHERE revision = <the writer's>``), never by the session's:
storing a finished turn's record cannot be refused because another turn
appended to the session meanwhile, and two processes claiming the same
invocation cannot both succeed.
"""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import ColumnElement, Row, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

import steadyflow.sessions.sql._schema as tables

from ...errors import CorruptRecordError, SessionError, StaleInvocationError
from ...trace_record._schema import InvocationTrace
from ..invocations import (
    FINAL_STATUSES,
    InvocationOwner,
    InvocationRecord,
    InvocationStatus,
    UnfinishedInvocations,
    check_record,
)
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


_UNREADABLE = (ValueError, TypeError, KeyError, AttributeError)
"""What decoding a bad column raises (``TraceFormatError`` is a ``ValueError``)."""


def _as_object(value: Any, column: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"{column} is a {type(value).__name__}, not a JSON object")
    return dict(cast("dict[str, Any]", value))


def _record(row: Row[Any]) -> InvocationRecord:
    """The record of ``row``, checked (``check_record``).

    Raises:
        CorruptRecordError: a column that cannot be read or trusted.
    """
    try:
        owner = None
        if row.owner_host is not None:
            owner = InvocationOwner(row.owner_host, int(row.owner_pid), float(row.owner_started_at))
        record = InvocationRecord(
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
            journal=_as_object(row.journal, "journal"),
            revision=row.revision,
            usage=_as_object(row.usage or {}, "usage"),
        )
    except _UNREADABLE as error:
        raise CorruptRecordError(
            row.app_name, row.user_id, row.session_id, row.id, f"{type(error).__name__}: {error}"
        ) from error
    return check_record(record)


async def _read(
    conn: AsyncConnection, where: ColumnElement[bool]
) -> tuple[list[InvocationRecord], list[CorruptRecordError]]:
    """The records ``where`` selects, oldest first, and an error for each bad one."""
    invocations = tables.invocations
    columns = invocations.c
    order = (columns.started_at, columns.id)
    try:
        rows = (await conn.execute(select(invocations).where(where).order_by(*order))).all()
    except _UNREADABLE:  # the driver could not decode a JSON column of some row
        return await _row_by_row(conn, where)
    records: list[InvocationRecord] = []
    corrupt: list[CorruptRecordError] = []
    for row in rows:
        try:
            records.append(_record(row))
        except CorruptRecordError as error:
            corrupt.append(error)
    return records, corrupt


async def _row_by_row(
    conn: AsyncConnection, where: ColumnElement[bool]
) -> tuple[list[InvocationRecord], list[CorruptRecordError]]:
    """``_read``, one row at a time, so a row the driver cannot decode is the only one lost."""
    invocations = tables.invocations
    columns = invocations.c
    keys = select(columns.app_name, columns.user_id, columns.session_id, columns.id)
    records: list[InvocationRecord] = []
    corrupt: list[CorruptRecordError] = []
    for app_name, user_id, session_id, invocation_id in await conn.execute(
        keys.where(where).order_by(columns.started_at, columns.id)
    ):
        key = SessionKey(app_name, user_id, session_id)
        this_row = session_filter(invocations, key) & (columns.id == invocation_id)
        one = select(invocations).where(this_row)
        try:
            row = (await conn.execute(one)).one()
            records.append(_record(row))
        except CorruptRecordError as error:
            corrupt.append(error)
        except _UNREADABLE as error:
            column = await _undecodable_column(conn, this_row)
            reason = f"{column} is not JSON ({type(error).__name__}: {error})"
            corrupt.append(CorruptRecordError(app_name, user_id, session_id, invocation_id, reason))
    return records, corrupt


async def _undecodable_column(conn: AsyncConnection, where: ColumnElement[bool]) -> str:
    """The name of the JSON column of the row ``where`` selects that cannot be decoded."""
    columns = tables.invocations.c
    for column in (columns.journal, columns.usage):
        try:
            (await conn.execute(select(column).where(where))).all()
        except _UNREADABLE:
            return column.name
    return "a JSON column"


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
    """One record of the session ``key``, or None.

    Raises:
        CorruptRecordError: it cannot be read.
    """
    where = session_filter(tables.invocations, key) & (tables.invocations.c.id == invocation_id)
    records, corrupt = await _read(conn, where)
    if corrupt:
        raise corrupt[0]
    return records[0] if records else None


async def load_records(conn: AsyncConnection, key: SessionKey) -> list[InvocationRecord]:
    """The session's records, oldest first.

    Raises:
        CorruptRecordError: one of them cannot be read (the first such).
    """
    records, corrupt = await _read(conn, session_filter(tables.invocations, key))
    if corrupt:
        raise corrupt[0]
    return records


async def load_unfinished(conn: AsyncConnection, app_name: str) -> UnfinishedInvocations:
    """The app's records that are not over, in every session, oldest first; bad ones apart."""
    columns = tables.invocations.c
    unfinished = [status.value for status in InvocationStatus if status not in FINAL_STATUSES]
    where = (columns.app_name == app_name) & columns.status.in_(unfinished)
    records, corrupt = await _read(conn, where)
    return UnfinishedInvocations(records, corrupt)
