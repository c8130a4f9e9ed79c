"""The SQL store's event cache: long sessions load cheaply, and never stale."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event as sa_event

from steadyflow.events import Event
from steadyflow.sessions.sql import SqlSessionService
from steadyflow.sessions.sql._cache import EventCache
from steadyflow.types import Content

APP = "app"


@contextmanager
def recorded_statements(service: SqlSessionService) -> Iterator[list[tuple[str, Any]]]:
    """Every SQL statement (and its parameters) the service runs inside the block."""
    seen: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, params: Any, *_: Any) -> None:
        seen.append((statement, params))

    engine = service.engine.sync_engine
    sa_event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        sa_event.remove(engine, "before_cursor_execute", record)


def event_reads(statements: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return [
        (s, p)
        for s, p in statements
        if s.lstrip().upper().startswith("SELECT") and ("FROM steadyflow_events" in s)
    ]


async def session_with_events(service: SqlSessionService, count: int, sid: str = "s1") -> None:
    session = await service.create_session(app_name=APP, user_id="u1", session_id=sid)
    for i in range(count):
        await service.append_event(session, Event(author="user", content=Content.from_text(f"{i}")))


async def load(service: SqlSessionService, sid: str = "s1") -> list[str]:
    session = await service.get_session(app_name=APP, user_id="u1", session_id=sid)
    assert session is not None
    return [e.text for e in session.events]


async def test_loading_an_unchanged_session_again_reads_no_events(
    sql_service: SqlSessionService,
) -> None:
    await session_with_events(sql_service, 30)
    await load(sql_service)

    with recorded_statements(sql_service) as statements:
        texts = await load(sql_service)

    assert texts == [str(i) for i in range(30)]
    assert event_reads(statements) == []


async def test_a_cold_load_reads_every_event_in_one_query(sql_url: str) -> None:
    writer = SqlSessionService(sql_url)
    reader = SqlSessionService(sql_url)
    try:
        await session_with_events(writer, 40)

        with recorded_statements(reader) as statements:
            texts = await load(reader)
    finally:
        await writer.close()
        await reader.close()

    assert texts == [str(i) for i in range(40)]
    assert len(event_reads(statements)) == 1


async def test_a_load_reads_only_the_events_another_writer_appended_since(sql_url: str) -> None:
    mine = SqlSessionService(sql_url)
    theirs = SqlSessionService(sql_url)
    try:
        await session_with_events(mine, 5)
        await load(mine)
        copy = await theirs.get_session(app_name=APP, user_id="u1", session_id="s1")
        assert copy is not None
        await theirs.append_event(copy, Event(author="user", content=Content.from_text("5")))

        with recorded_statements(mine) as statements:
            texts = await load(mine)
    finally:
        await mine.close()
        await theirs.close()

    assert texts == [str(i) for i in range(6)]
    [(_, params)] = event_reads(statements)
    assert 5 in tuple(params) and 6 in tuple(params)  # the query asks for seq 5 < seq <= 6


async def test_a_session_recreated_by_another_writer_is_not_served_from_the_cache(
    sql_url: str,
) -> None:
    mine = SqlSessionService(sql_url)
    theirs = SqlSessionService(sql_url)
    try:
        await session_with_events(mine, 3)
        await load(mine)
        await theirs.delete_session(app_name=APP, user_id="u1", session_id="s1")
        await session_with_events(theirs, 4)

        texts = await load(mine)
    finally:
        await mine.close()
        await theirs.close()

    assert texts == ["0", "1", "2", "3"]


async def test_a_service_without_cache_loads_the_same_events(sql_url: str) -> None:
    uncached = SqlSessionService(sql_url, cache_max_events=0)
    try:
        await session_with_events(uncached, 3)
        await load(uncached)

        with recorded_statements(uncached) as statements:
            texts = await load(uncached)
    finally:
        await uncached.close()

    assert texts == ["0", "1", "2"]
    assert len(event_reads(statements)) == 1


def test_the_cache_evicts_the_least_recently_used_session_beyond_its_event_budget() -> None:
    cache = EventCache(max_events=5)
    two = [Event(author="a"), Event(author="a")]
    cache.store(("a", "u", "old"), "i1", list(two))
    cache.store(("a", "u", "used"), "i2", list(two))
    assert cache.lookup(("a", "u", "old"), "i1", 2) is not None  # now most recently used

    cache.store(("a", "u", "new"), "i3", list(two))

    assert cache.lookup(("a", "u", "used"), "i2", 2) is None
    assert cache.lookup(("a", "u", "old"), "i1", 2) is not None
    assert cache.lookup(("a", "u", "new"), "i3", 2) is not None


def test_the_cache_drops_an_entry_of_another_incarnation() -> None:
    cache = EventCache(max_events=10)
    cache.store(("a", "u", "s"), "before-delete", [Event(author="a")])

    assert cache.lookup(("a", "u", "s"), "after-recreate", 1) is None
    assert cache.lookup(("a", "u", "s"), "before-delete", 1) is None
