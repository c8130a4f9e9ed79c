"""A read-only or full database is a ``SessionStoreError`` naming the store, never raw SQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from steadyflow import SessionStoreError
from steadyflow.events import Event
from steadyflow.sessions.sql import SqlSessionService
from steadyflow.types import Content
from tests.support.sqlite_faults import FULL, READ_ONLY, pragma_on_connect

SECRET_TEXT = "card 4242 4242"


@pytest.fixture
async def url_with_session(tmp_path: Path) -> tuple[str, str]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'sessions.db'}"
    service = SqlSessionService(url)
    session = await service.create_session(app_name="app", user_id="u")
    await service.close()
    return url, session.id


def message_event() -> Event:
    return Event(author="user", content=Content.from_text(SECRET_TEXT * 2000))


async def test_a_read_only_database_refuses_an_append_as_a_session_store_error(url_with_session):
    url, session_id = url_with_session
    service = SqlSessionService(url)
    with pragma_on_connect(service.engine.sync_engine, READ_ONLY):
        session = await service.get_session(app_name="app", user_id="u", session_id=session_id)
        assert session is not None
        with pytest.raises(SessionStoreError) as refused:
            await service.append_event(session, message_event())
    error = refused.value
    assert isinstance(error.__cause__, OperationalError)
    assert error.url == url and "readonly" in str(error) and "append an event" in str(error)
    assert "INSERT" not in str(error) and "UPDATE" not in str(error)
    assert SECRET_TEXT not in str(error)
    assert session.revision == 0 and session.events == []
    await service.close()


async def test_a_full_database_stores_nothing_of_the_refused_event(url_with_session):
    url, session_id = url_with_session
    service = SqlSessionService(url)
    with pragma_on_connect(service.engine.sync_engine, FULL):
        session = await service.get_session(app_name="app", user_id="u", session_id=session_id)
        assert session is not None
        with pytest.raises(SessionStoreError, match="full"):
            await service.append_event(session, message_event())
    await service.close()

    fresh = SqlSessionService(url)
    stored = await fresh.get_session(app_name="app", user_id="u", session_id=session_id)
    assert stored is not None and stored.revision == 0 and stored.events == []
    await fresh.close()


async def test_a_read_only_database_refuses_a_new_session_naming_what_failed(tmp_path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'sessions.db'}"
    service = SqlSessionService(url)
    with pragma_on_connect(service.engine.sync_engine, READ_ONLY):
        with pytest.raises(SessionStoreError) as refused:
            await service.create_session(app_name="app", user_id="u")
    assert "create a session" in str(refused.value)
    await service.close()
