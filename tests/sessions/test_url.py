"""``open_session_service``: one string picks the session store."""

from __future__ import annotations

from pathlib import Path

import pytest

from steadyflow.errors import ConfigurationError
from steadyflow.sessions import (
    DEFAULT_SESSION_URL,
    InMemorySessionService,
    SqlSessionService,
    open_session_service,
)


def test_memory_url_opens_the_in_memory_store() -> None:
    assert isinstance(open_session_service("memory://"), InMemorySessionService)


@pytest.mark.parametrize("scheme", ["sqlite", "sqlite+aiosqlite"])
async def test_sqlite_url_opens_a_sql_store_on_that_file(scheme: str, tmp_path: Path) -> None:
    service = open_session_service(f"{scheme}:///{tmp_path / 'sessions.db'}")
    assert isinstance(service, SqlSessionService)

    await service.create_session(app_name="app", user_id="u1")

    assert (tmp_path / "sessions.db").exists()
    assert service.engine.url.drivername == "sqlite+aiosqlite"
    await service.close()


@pytest.mark.parametrize("scheme", ["postgresql", "postgresql+asyncpg", "postgres"])
def test_postgresql_url_opens_a_sql_store_with_asyncpg(scheme: str) -> None:
    service = open_session_service(f"{scheme}://app@db.internal:5433/sessions")

    assert isinstance(service, SqlSessionService)
    assert service.engine.url.drivername == "postgresql+asyncpg"
    assert (service.engine.url.host, service.engine.url.port) == ("db.internal", 5433)


@pytest.mark.parametrize(
    ("url", "complaint"),
    [
        ("redis://localhost", "unknown scheme 'redis'"),
        ("sessions.db", "has no scheme"),
        ("memory://somewhere", "memory:// takes no path"),
    ],
)
def test_an_unknown_url_is_refused_naming_it(url: str, complaint: str) -> None:
    with pytest.raises(ConfigurationError, match=complaint):
        open_session_service(url)


def test_the_default_url_is_a_sqlite_file_under_dot_steadyflow() -> None:
    assert DEFAULT_SESSION_URL == "sqlite:///.steadyflow/sessions.db"
