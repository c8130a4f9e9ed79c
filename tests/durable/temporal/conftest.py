"""Temporal-mode fixtures: a client of the session's dev server, an in-process worker."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import pytest
from temporalio.client import Client

from steadyflow.agents.base_agent import BaseAgent
from steadyflow.durable.temporal import TemporalSettings, connect, create_worker
from steadyflow.run_config import RunConfig
from steadyflow.sessions.url import open_session_service
from tests.support.temporal import TemporalServer

pytestmark = pytest.mark.temporal

APP = "temporal_app"
FAST = {"heartbeat_timeout": 2.0}


@pytest.fixture
async def temporal_client(temporal_server: TemporalServer) -> Client:
    return await connect(temporal_server.address)


@pytest.fixture
def settings(request: pytest.FixtureRequest) -> TemporalSettings:
    """A task queue of this test's own, so no other test's worker takes its tasks."""
    queue = f"q-{request.node.name}-{os.urandom(4).hex()}"
    return TemporalSettings(task_queue=queue, **FAST)


Worker = Callable[..., AbstractAsyncContextManager[None]]


@pytest.fixture
def worker(temporal_client: Client, settings: TemporalSettings) -> Worker:
    """``async with worker(agent, url):`` runs a worker in this process for the block."""

    @asynccontextmanager
    async def running(
        agent: BaseAgent,
        url: str,
        run_config: RunConfig | None = None,
        app_name: str = APP,
        **options: Any,
    ) -> AsyncIterator[None]:
        service = open_session_service(url)
        built = create_worker(
            temporal_client,
            app_name=app_name,
            agent=agent,
            session_service=service,
            run_config=run_config,
            settings=settings,
            **options,
        )
        try:
            async with built:
                yield
        finally:
            await service.close()

    return running
