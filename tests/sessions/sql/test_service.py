"""What only the SQL store promises: schema, transactions, several writers, settings."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event as sa_event
from sqlalchemy import text

from steadyflow.errors import (
    ConfigurationError,
    SchemaVersionError,
    SessionError,
    StaleSessionError,
)
from steadyflow.events import Event, EventActions
from steadyflow.sessions import Session
from steadyflow.sessions.sql import SCHEMA_VERSION, SqlSessionService
from steadyflow.types import Content

APP = "app"


def delta_event(delta: dict[str, Any]) -> Event:
    return Event(author="agent", actions=EventActions(state_delta=delta))


async def fetch(service: SqlSessionService, sql: str) -> list[Any]:
    async with service.engine.connect() as conn:
        return list((await conn.execute(text(sql))).all())


async def reload(service: SqlSessionService, session: Session) -> Session:
    loaded = await service.get_session(app_name=APP, user_id=session.user_id, session_id=session.id)
    assert loaded is not None
    return loaded


async def test_tables_and_the_schema_version_are_created_on_first_use(
    sql_service: SqlSessionService,
) -> None:
    await sql_service.list_sessions(app_name=APP)

    assert await fetch(sql_service, "SELECT id, version FROM steadyflow_schema") == [
        (1, SCHEMA_VERSION)
    ]
    for table in ("sessions", "events", "app_state", "user_state"):
        assert await fetch(sql_service, f"SELECT count(*) FROM steadyflow_{table}") == [(0,)]


async def test_an_event_without_actions_is_stored_without_them_and_loads_empty_actions(
    sql_service: SqlSessionService,
) -> None:
    session = await sql_service.create_session(app_name=APP, user_id="u")
    await sql_service.append_event(session, Event(author="agent"))
    await sql_service.append_event(session, delta_event({"k": 1}))

    rows = await fetch(sql_service, "SELECT data FROM steadyflow_events ORDER BY seq")
    stored = [row[0] if isinstance(row[0], dict) else json.loads(row[0]) for row in rows]
    assert "actions" not in stored[0]
    assert stored[1]["actions"]["state_delta"] == {"k": 1}
    loaded = await reload(sql_service, session)
    assert loaded.events[0].actions == EventActions()
    assert loaded.events[1].actions.state_delta == {"k": 1}


async def test_a_database_written_by_a_newer_schema_is_refused(sql_url: str) -> None:
    old = SqlSessionService(sql_url)
    await old.list_sessions(app_name=APP)
    async with old.engine.begin() as conn:
        await conn.execute(text("UPDATE steadyflow_schema SET version = 99"))
    await old.close()
    newer_db = SqlSessionService(sql_url)

    with pytest.raises(SchemaVersionError, match="schema version 99"):
        await newer_db.list_sessions(app_name=APP)
    await newer_db.close()


async def test_a_failure_inside_append_stores_neither_the_event_nor_any_state(
    sql_service: SqlSessionService,
) -> None:
    session = await sql_service.create_session(app_name=APP, user_id="u1", state={"k": 0})

    def fail_on_user_state(_c: Any, _cur: Any, statement: str, *_: Any) -> None:
        if "INSERT INTO steadyflow_user_state" in statement:
            raise RuntimeError("disk full")

    engine = sql_service.engine.sync_engine
    sa_event.listen(engine, "before_cursor_execute", fail_on_user_state)
    with pytest.raises(RuntimeError, match="disk full"):
        await sql_service.append_event(session, delta_event({"k": 1, "app:a": 1, "user:u": 1}))
    sa_event.remove(engine, "before_cursor_execute", fail_on_user_state)

    loaded = await reload(sql_service, session)
    assert (loaded.events, loaded.state, loaded.revision) == ([], {"k": 0}, 0)
    assert (session.events, session.revision) == ([], 0)
    assert await fetch(sql_service, "SELECT count(*) FROM steadyflow_app_state") == [(0,)]


async def test_a_state_value_that_is_not_json_is_refused_naming_the_key(
    sql_service: SqlSessionService,
) -> None:
    session = await sql_service.create_session(app_name=APP, user_id="u1")

    with pytest.raises(SessionError, match="'user:handle' holds a object"):
        await sql_service.append_event(session, delta_event({"user:handle": object()}))

    assert (await reload(sql_service, session)).events == []


async def test_a_stale_copy_loaded_by_another_service_is_rejected(sql_url: str) -> None:
    mine, theirs = SqlSessionService(sql_url), SqlSessionService(sql_url)
    session = await mine.create_session(app_name=APP, user_id="u1", session_id="s1")
    their_copy = await reload(theirs, session)
    await theirs.append_event(their_copy, delta_event({"who": "them"}))

    with pytest.raises(StaleSessionError, match="'s1'"):
        await mine.append_event(session, delta_event({"who": "me"}))

    assert (await reload(mine, session)).state == {"who": "them"}
    await mine.close()
    await theirs.close()


async def test_of_many_copies_appending_at_once_exactly_one_wins(sql_url: str) -> None:
    services = [SqlSessionService(sql_url) for _ in range(2)]
    session = await services[0].create_session(app_name=APP, user_id="u1")
    copies = [await reload(services[i % 2], session) for i in range(6)]

    results = await asyncio.gather(
        *(services[i % 2].append_event(c, delta_event({"n": i})) for i, c in enumerate(copies)),
        return_exceptions=True,
    )

    assert sum(isinstance(r, Event) for r in results) == 1
    assert sum(isinstance(r, StaleSessionError) for r in results) == 5
    assert len((await reload(services[1], session)).events) == 1
    for service in services:
        await service.close()


async def test_sqlite_runs_in_wal_mode_with_full_sync(tmp_path: Path) -> None:
    service = SqlSessionService(f"sqlite:///{tmp_path / 'deep' / 'er' / 's.db'}")
    await service.list_sessions(app_name=APP)

    assert await fetch(service, "PRAGMA journal_mode") == [("wal",)]
    assert await fetch(service, "PRAGMA synchronous") == [(2,)]  # FULL
    assert (tmp_path / "deep" / "er" / "s.db").exists()
    await service.close()


async def test_a_service_keeps_working_in_a_second_event_loop(tmp_path: Path) -> None:
    service = SqlSessionService(f"sqlite:///{tmp_path / 's.db'}")
    await service.create_session(app_name=APP, user_id="u1", session_id="s1")

    def in_new_loop() -> list[str]:
        async def ids() -> list[str]:
            return [s.id for s in await service.list_sessions(app_name=APP)]

        return asyncio.run(ids())

    assert await asyncio.to_thread(in_new_loop) == ["s1"]
    await service.close()


@pytest.mark.parametrize(
    ("url", "complaint"),
    [
        ("mysql://u@h/db", "unsupported driver 'mysql'"),
        ("postgresql+psycopg2://u@h/db", "unsupported driver 'postgresql\\+psycopg2'"),
        ("sqlite://", "needs a file path"),
        ("not a url", "is not a URL"),
    ],
)
def test_a_bad_database_url_is_refused_naming_what_is_wrong(url: str, complaint: str) -> None:
    with pytest.raises(ConfigurationError, match=complaint):
        SqlSessionService(url)


def test_repr_hides_the_password() -> None:
    service = SqlSessionService("postgresql://app:secret@db.internal/sessions")

    assert "secret" not in repr(service)
    assert "postgresql+asyncpg://app:***@db.internal/sessions" in repr(service)


async def test_events_of_a_session_come_back_in_append_order_after_many_appends(
    sql_service: SqlSessionService,
) -> None:
    session = await sql_service.create_session(app_name=APP, user_id="u1")
    for i in range(25):
        await sql_service.append_event(
            session, Event(author="u", content=Content.from_text(str(i)))
        )

    fresh = SqlSessionService(sql_service.engine.url)
    loaded = await reload(fresh, session)
    await fresh.close()

    assert [e.text for e in loaded.events] == [str(i) for i in range(25)]


@pytest.mark.postgres
async def test_postgres_sessions_writing_the_same_shared_keys_at_once_all_succeed(
    postgres_url: str,
) -> None:
    # Half write the keys in one order, half in the other: upserting them
    # unsorted deadlocks some of these transactions. (SQLite has one writer
    # at a time, so nothing to deadlock.)
    services = [SqlSessionService(postgres_url) for _ in range(8)]
    sessions = [await services[i % 8].create_session(app_name=APP, user_id="u1") for i in range(64)]
    keys = [f"app:k{j}" for j in range(4)] + [f"user:k{j}" for j in range(4)]

    def delta(i: int) -> dict[str, Any]:
        return {k: i for k in (keys if i % 2 else reversed(keys))}

    results = await asyncio.gather(
        *(services[i % 8].append_event(s, delta_event(delta(i))) for i, s in enumerate(sessions)),
        return_exceptions=True,
    )

    state = (await reload(services[0], sessions[0])).state
    assert [r for r in results if not isinstance(r, Event)] == []
    assert len({state[k] for k in keys}) == 1  # all keys from the last transaction
    for service in services:
        await service.close()
