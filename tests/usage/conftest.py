"""Usage fixtures: the session stores (shared with tests/sessions) and each spend store."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from steadyflow.sessions.sql import SqlSessionService
from steadyflow.usage._memory_spend import InMemorySpendStore
from steadyflow.usage.redis import RedisSpendStore
from steadyflow.usage.spend import SpendStore
from tests.sessions.conftest import service, sql_url, store_url

__all__ = ["service", "spend_store", "sql_url"]


@pytest.fixture(params=["memory", "sqlite", "postgres", "redis"])
async def spend_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SpendStore]:
    """Each spend store, empty."""
    if request.param == "memory":
        yield InMemorySpendStore()
    elif request.param == "redis":
        server = request.getfixturevalue("redis_server")
        store = RedisSpendStore(url=server.url(), prefix=f"t{os.urandom(4).hex()}:")
        yield store
        await store.aclose()
    else:
        service = SqlSessionService(store_url(request, request.param, tmp_path))
        yield service.spend_store()
        await service.close()
