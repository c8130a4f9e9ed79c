"""Fixtures for the whole suite: real servers, started once per test run.

Servers live in ``tests/support/`` (one module each); a server that cannot
start skips its tests locally and fails them in CI (``CI=true``). A test that
needs one of them is ``slow`` too (``make test-fast`` skips it).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.support.postgres import PostgresServer, start_postgres
from tests.support.redis import RedisServer, start_redis
from tests.support.servers import ServerUnavailableError, server_unavailable
from tests.support.temporal import TemporalServer, start_temporal

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

SERVER_MARKERS = ("postgres", "redis", "temporal")
SERVER_FIXTURES = ("postgres_server", "redis_server", "temporal_server")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``slow`` every test that needs a real database server."""
    for item in items:
        needs_server = any(item.get_closest_marker(m) for m in SERVER_MARKERS) or any(
            f in getattr(item, "fixturenames", ()) for f in SERVER_FIXTURES
        )
        if needs_server:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server on loopback for this test run."""
    try:
        server = start_postgres()
    except ServerUnavailableError as exc:
        server_unavailable(f"PostgreSQL: {exc}")
    yield server
    server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """An asyncpg URL of an empty database (emptied before each test)."""
    return postgres_server.emptied_database()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A Redis server on loopback for this test run."""
    try:
        server = start_redis()
    except ServerUnavailableError as exc:
        server_unavailable(f"Redis: {exc}")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def temporal_server() -> Iterator[TemporalServer]:
    """A Temporal dev server (in memory) on loopback for this test run."""
    try:
        server = start_temporal()
    except ServerUnavailableError as exc:
        server_unavailable(f"Temporal: {exc}")
    yield server
    server.stop()


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """Every span the test ends, in memory (the process's exporter, emptied around the test).

    The SDK is imported here, not at the top: a run whose tests capture no
    spans keeps OpenTelemetry unloaded, as a user without it has it.
    """
    from tests.support.otel import span_exporter

    exporter = span_exporter()
    exporter.clear()
    yield exporter
    exporter.clear()
