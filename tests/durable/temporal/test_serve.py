"""The server on a Temporal fleet: ``POST /run`` starts a workflow that a worker runs."""

from __future__ import annotations

import pytest
from temporalio.client import Client

from steadyflow import LlmAgent
from steadyflow.durable.temporal import TemporalFleet, TemporalSettings
from steadyflow.server import create_app
from steadyflow.sessions import open_session_service
from steadyflow.testing import ScriptedLlm, call
from tests.durable.temporal.conftest import Worker
from tests.server.harness import APP, create_session, lookup_order, run_body, running

pytestmark = [pytest.mark.temporal, pytest.mark.postgres]


async def test_run_on_a_fleet_answers_with_the_events_the_worker_stored(
    postgres_url: str, temporal_client: Client, settings: TemporalSettings, worker: Worker
) -> None:
    model = ScriptedLlm([call("lookup_order", {"order_id": "812"}), "Order 812 has shipped."])
    agent = LlmAgent(name=APP, model=model, tools=[lookup_order])
    store = open_session_service(postgres_url)
    app = create_app(agent, store, temporal=TemporalFleet(temporal_client, settings))
    try:
        async with worker(agent, postgres_url, app_name=APP), running(app) as client:
            session_id = await create_session(client)
            response = await client.post("/run", json=run_body(session_id, "Where is 812?"))
    finally:
        await store.close()
    assert response.status_code == 200, response.text
    events = response.json()["events"]
    assert events[0]["content"]["parts"][0]["function_call"]["name"] == "lookup_order"
    assert events[1]["content"]["parts"][0]["function_response"]["response"]["status"] == "shipped"
    assert events[2]["content"]["parts"][0]["text"] == "Order 812 has shipped."
    assert model.calls == 2  # made by the worker (in this process here), once each
