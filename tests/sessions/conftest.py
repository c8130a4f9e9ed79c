"""Session-store fixtures: every store the contract suite runs against.

``service`` is parametrized over the in-memory, SQLite and PostgreSQL stores
so one suite proves all three keep the same contract; ``sql_url`` covers the
two SQL databases for SQL-only behaviour.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from steadyflow.sessions import BaseSessionService, InMemorySessionService
from steadyflow.sessions.sql import SqlSessionService

STORES = ["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
SQL_STORES = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


def store_url(request: pytest.FixtureRequest, kind: str, tmp_path: Path) -> str:
    """A fresh database URL of ``kind`` ("sqlite" or "postgres")."""
    if kind == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'sessions.db'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture(params=STORES)
async def service(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[BaseSessionService]:
    """Each session store, empty."""
    if request.param == "memory":
        yield InMemorySessionService()
        return
    sql = SqlSessionService(store_url(request, request.param, tmp_path))
    yield sql
    await sql.close()


@pytest.fixture(params=SQL_STORES)
def sql_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty SQLite file or PostgreSQL database."""
    return store_url(request, request.param, tmp_path)


@pytest.fixture
async def sql_service(sql_url: str) -> AsyncIterator[SqlSessionService]:
    """A SQL store on an empty database."""
    sql = SqlSessionService(sql_url)
    yield sql
    await sql.close()
