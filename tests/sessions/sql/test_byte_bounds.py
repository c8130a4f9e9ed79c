"""The SQL store's byte bounds: the event cache in bytes, and the largest event stored."""

from __future__ import annotations

import pytest

from steadyflow import EventTooLargeError, LlmAgent, Runner
from steadyflow.events import Event
from steadyflow.sessions.sql import SqlSessionService
from steadyflow.sessions.sql._cache import DEFAULT_CACHE_MAX_BYTES, EventCache
from steadyflow.testing import ScriptedLlm
from steadyflow.types import Content
from tests.sessions.sql.test_cache import APP, event_reads, load, recorded_statements

KIB = 1024


def big_event(kib: int) -> Event:
    return Event(author="user", content=Content.from_text("x" * (kib * KIB)))


async def session_of(service: SqlSessionService, sid: str, *sizes_kib: int) -> None:
    session = await service.create_session(app_name=APP, user_id="u1", session_id=sid)
    for kib in sizes_kib:
        await service.append_event(session, big_event(kib))


async def test_a_session_larger_than_the_cache_byte_bound_is_not_kept(sql_url: str) -> None:
    service = SqlSessionService(sql_url, cache_max_bytes=100 * KIB)
    try:
        await session_of(service, "small", 10, 10)
        await session_of(service, "large", 40, 40, 40)  # 120 KiB: over the bound
        await load(service, "small")
        await load(service, "large")
        with recorded_statements(service) as statements:
            assert len(await load(service, "small")) == 2
            reads_small = len(event_reads(statements))
            assert len(await load(service, "large")) == 3
        assert reads_small == 0  # still cached
        assert len(event_reads(statements)) == 1  # re-read: the cache refused 120 KiB
    finally:
        await service.close()


def test_the_cache_evicts_least_recently_used_sessions_beyond_its_byte_bound() -> None:
    cache = EventCache(max_events=1000, max_bytes=100)
    cache.store(("a", "u", "old"), "i1", [Event(author="a")], 40)
    cache.store(("a", "u", "used"), "i2", [Event(author="a")], 40)
    assert cache.lookup(("a", "u", "old"), "i1", 1) is not None  # now most recently used
    cache.extend(("a", "u", "old"), "i1", 1, Event(author="a"), 30)  # 110 bytes: evict one

    assert cache.lookup(("a", "u", "used"), "i2", 1) is None
    assert cache.lookup(("a", "u", "old"), "i1", 2) is not None
    assert cache.size == (2, 70)


def test_the_default_cache_byte_bound_is_64_mib() -> None:
    assert DEFAULT_CACHE_MAX_BYTES == 64 * 1024 * KIB


async def test_an_event_over_max_event_bytes_is_refused_and_nothing_is_stored(
    sql_url: str,
) -> None:
    service = SqlSessionService(sql_url, max_event_bytes=50 * KIB)
    try:
        session = await service.create_session(app_name=APP, user_id="u1", session_id="s")
        await service.append_event(session, big_event(40))
        with pytest.raises(EventTooLargeError) as refused:
            await service.append_event(session, big_event(60))
        assert refused.value.limit == 50 * KIB and refused.value.size > 60 * KIB
        assert session.revision == 1
        fresh = SqlSessionService(sql_url)
        stored = await fresh.get_session(app_name=APP, user_id="u1", session_id="s")
        await fresh.close()
        assert stored is not None and stored.revision == 1 and len(stored.events) == 1
    finally:
        await service.close()


async def test_a_model_answer_over_max_event_bytes_fails_the_turn_and_keeps_its_trace(
    sql_url: str,
) -> None:
    service = SqlSessionService(sql_url, max_event_bytes=64 * KIB)
    runner = Runner(
        app_name=APP,
        agent=LlmAgent(name="a", model=ScriptedLlm(["y" * (100 * KIB)])),
        session_service=service,
    )
    try:
        session = await runner.create_session(user_id="u1")
        with pytest.raises(EventTooLargeError):
            async for _ in runner.run_async(user_id="u1", session_id=session.id, new_message="q"):
                pass
        stored = await service.get_session(app_name=APP, user_id="u1", session_id=session.id)
        assert stored is not None
        assert [e.author for e in stored.events] == ["user"]  # no truncated answer
        [record] = await service.list_invocations(app_name=APP, user_id="u1", session_id=session.id)
        assert record.trace is not None and record.trace.status == "error"
    finally:
        await service.close()
