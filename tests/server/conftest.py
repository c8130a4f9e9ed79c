"""Fixtures: the echo agent served over real HTTP, with an in-memory session store."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from steadyflow.server import create_app
from steadyflow.sessions import InMemorySessionService
from tests.server.harness import echo_agent, running


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    """A client of the echo agent's server (no auth, default limits)."""
    async with running(create_app(echo_agent(), InMemorySessionService())) as http:
        yield http
