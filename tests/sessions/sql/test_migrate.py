"""A database written by schema version 1 opens: its trace events become records."""

from __future__ import annotations

from sqlalchemy import text

from steadyflow.events import Event
from steadyflow.sessions import InvocationStatus
from steadyflow.sessions.sql import SCHEMA_VERSION, SqlSessionService
from steadyflow.sessions.sql import _schema as t
from steadyflow.sessions.sql._codec import encode_event
from steadyflow.sessions.sql._engine import create_engine, normalize_url
from steadyflow.sessions.sql._key import SessionKey
from steadyflow.trace_record import InvocationTrace, StepTrace
from steadyflow.types import Content

APP, USER, SID = "app", "u", "s1"
V1_TABLES = [t.sessions, t.events, t.app_state, t.user_state, t.schema]


def trace(invocation_id: str, status: str) -> InvocationTrace:
    step = StepTrace(1, "a", 0.0, end=0.5, model="m")
    return InvocationTrace(
        invocation_id=invocation_id,
        started_at=1000.0,
        duration=0.5,
        status=status,  # type: ignore[arg-type]
        error_type="ModelHTTPError" if status == "error" else None,
        budget_used=2,
        budget_limit=9,
        steps=[step],
    )


def trace_event(value: InvocationTrace) -> Event:
    """What version 1 appended at the end of every invocation."""
    return Event(
        invocation_id=value.invocation_id,
        author="steadyflow",
        custom_metadata={"steadyflow.trace": value.to_json()},
    )


def said(invocation_id: str, author: str, words: str) -> Event:
    role = "user" if author == "user" else "model"
    return Event(
        invocation_id=invocation_id, author=author, content=Content.from_text(words, role=role)
    )


V1_EVENTS = [
    said("e-1", "user", "hi"),
    said("e-1", "a", "hello"),
    trace_event(trace("e-1", "ok")),
    said("e-2", "user", "again"),
    trace_event(trace("e-2", "error")),
    said("e-3", "steadyflow", "an agent may be named steadyflow"),
]


async def write_v1_database(url: str) -> None:
    engine = create_engine(normalize_url(url))
    key = SessionKey(APP, USER, SID)
    async with engine.begin() as conn:
        await conn.run_sync(lambda c: t.metadata.create_all(c, tables=V1_TABLES))
        await conn.execute(t.schema.insert().values(id=1, version=1))
        await conn.execute(
            t.sessions.insert().values(
                app_name=APP,
                user_id=USER,
                id=SID,
                incarnation="i",
                state={},
                revision=len(V1_EVENTS),
                create_time=1.0,
                update_time=2.0,
            )
        )
        for seq, event in enumerate(V1_EVENTS, start=1):
            row = t.event_row(key, seq, event, encode_event(event))
            await conn.execute(t.events.insert().values(row))
    await engine.dispose()


async def test_a_version_1_database_moves_its_traces_into_records(sql_url) -> None:
    await write_v1_database(sql_url)
    service = SqlSessionService(sql_url)
    try:
        session = await service.get_session(app_name=APP, user_id=USER, session_id=SID)
        assert session is not None
        assert [(e.author, e.text) for e in session.events] == [
            ("user", "hi"),
            ("a", "hello"),
            ("user", "again"),
            ("steadyflow", "an agent may be named steadyflow"),
        ]
        assert session.revision == 4
        records = await service.list_invocations(app_name=APP, user_id=USER, session_id=SID)
        assert [(r.id, r.status, r.llm_calls, r.max_llm_calls) for r in records] == [
            ("e-1", InvocationStatus.COMPLETED, 2, 9),
            ("e-2", InvocationStatus.FAILED, 2, 9),
        ]
        assert records[0].trace == trace("e-1", "ok")
        assert (records[1].error_type, records[1].agent, records[1].ended_at) == (
            "ModelHTTPError",
            "a",
            1000.5,
        )
        await service.append_event(session, said("e-4", "user", "after"))  # numbering is whole
        again = await service.get_session(app_name=APP, user_id=USER, session_id=SID)
        assert again is not None and [e.text for e in again.events][-1] == "after"
        async with service.engine.connect() as conn:
            version = (await conn.execute(text("SELECT version FROM steadyflow_schema"))).scalar()
            seqs = (await conn.execute(text("SELECT seq FROM steadyflow_events"))).scalars().all()
        assert version == SCHEMA_VERSION == 3
        assert sorted(seqs) == [1, 2, 3, 4, 5]
    finally:
        await service.close()


async def test_a_version_2_database_gains_the_usage_column_and_keeps_its_records(sql_url) -> None:
    from sqlalchemy import MetaData, Table

    old = MetaData()
    v2_tables = [table.to_metadata(old) for table in V1_TABLES]
    columns = [c._copy() for c in t.invocations.columns if c.name != "usage"]
    v2_invocations = Table(t.invocations.name, old, *columns)
    engine = create_engine(normalize_url(sql_url))
    async with engine.begin() as conn:
        await conn.run_sync(old.create_all)
        await conn.execute(v2_tables[-1].insert().values(id=1, version=2))
        row = {
            "app_name": APP,
            "user_id": USER,
            "session_id": SID,
            "id": "e-1",
            "agent": "a",
            "status": "completed",
            "started_at": 1.0,
            "llm_calls": 1,
            "max_llm_calls": 9,
            "resume_count": 0,
            "journal": {},
            "revision": 1,
        }
        await conn.execute(v2_invocations.insert().values(**row))
    await engine.dispose()
    service = SqlSessionService(sql_url)
    try:
        await service.create_session(app_name=APP, user_id=USER, session_id=SID)
        (record,) = await service.list_invocations(app_name=APP, user_id=USER, session_id=SID)
        assert (record.id, record.llm_calls, record.usage) == ("e-1", 1, {})
        record.usage = {"input_tokens": 5, "cost": "0.01"}
        await service.update_invocation(record)
        (again,) = await service.list_invocations(app_name=APP, user_id=USER, session_id=SID)
        assert again.usage == {"input_tokens": 5, "cost": "0.01"}
        async with service.engine.connect() as conn:
            version = (await conn.execute(text("SELECT version FROM steadyflow_schema"))).scalar()
        assert version == SCHEMA_VERSION == 3
    finally:
        await service.close()
