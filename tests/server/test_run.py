"""``POST /run``: one turn's events as JSON, run settings within limits, failure statuses."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from steadyflow import LlmAgent
from steadyflow.errors import ModelResponseError
from steadyflow.server import ServerLimits, create_app
from steadyflow.sessions import InMemorySessionService
from steadyflow.sessions.sql import SqlSessionService
from steadyflow.testing import ScriptedLlm, call, fake_clock, http_error
from tests.server.harness import (
    APP,
    USER,
    Gate,
    create_session,
    echo_agent,
    gated_agent,
    lookup_order,
    run_body,
    running,
)


def tool_agent(*steps: Any) -> LlmAgent:
    return LlmAgent(name=APP, model=ScriptedLlm(list(steps)), tools=[lookup_order])


def served(agent: LlmAgent, limits: ServerLimits | None = None) -> Any:
    return running(create_app(agent, InMemorySessionService(), limits))


async def test_run_answers_with_the_turns_events_in_order():
    agent = tool_agent(call("lookup_order", {"order_id": "812"}), "Order 812 has shipped.")
    async with served(agent) as client:
        session_id = await create_session(client)
        response = await client.post("/run", json=run_body(session_id, "Where is 812?"))
    assert response.status_code == 200
    events = response.json()["events"]
    assert events[0]["content"]["parts"][0]["function_call"]["name"] == "lookup_order"
    assert events[1]["content"]["parts"][0]["function_response"]["response"]["status"] == "shipped"
    assert events[2]["content"]["parts"][0]["text"] == "Order 812 has shipped."
    assert response.json()["error"] is None


async def test_run_stores_the_turn_in_the_session(client: httpx.AsyncClient):
    session_id = await create_session(client)
    await client.post("/run", json=run_body(session_id, "one"))
    stored = (await client.get(f"/apps/{APP}/users/{USER}/sessions/{session_id}")).json()
    texts = [e["content"]["parts"][0]["text"] for e in stored["events"] if e["content"]]
    assert texts == ["one", "echo: one"]


async def test_run_with_sse_streaming_mode_includes_the_partials(client: httpx.AsyncClient):
    session_id = await create_session(client)
    body = run_body(session_id, "yo", streaming_mode="sse")
    events = (await client.post("/run", json=body)).json()["events"]
    assert [e["partial"] for e in events] == [True, True, None]


@pytest.mark.parametrize("value", [0, -1, 101])
async def test_max_llm_calls_outside_the_limit_is_422_naming_the_field(
    client: httpx.AsyncClient, value: int
):
    session_id = await create_session(client)
    response = await client.post("/run", json=run_body(session_id, max_llm_calls=value))
    assert response.status_code == 422
    assert response.json()["error"]["fields"] == [
        {
            "field": "run_config.max_llm_calls",
            "message": f"must be between 1 and 100 (the server's limit), got {value}",
        }
    ]


async def test_retry_attempts_above_the_limit_is_422_naming_the_field(client: httpx.AsyncClient):
    session_id = await create_session(client)
    response = await client.post("/run", json=run_body(session_id, retry_max_attempts=6))
    assert response.status_code == 422
    assert response.json()["error"]["fields"][0]["field"] == "run_config.retry_max_attempts"


async def test_an_unknown_streaming_mode_is_422_naming_the_field(client: httpx.AsyncClient):
    session_id = await create_session(client)
    response = await client.post("/run", json=run_body(session_id, streaming_mode="bidi"))
    assert response.status_code == 422
    assert response.json()["error"]["fields"][0]["field"] == "run_config.streaming_mode"


async def test_the_requests_call_budget_applies_and_exhaustion_is_429():
    agent = tool_agent(call("lookup_order", {"order_id": "1"}), "never reached")
    async with served(agent) as client:
        session_id = await create_session(client)
        response = await client.post("/run", json=run_body(session_id, max_llm_calls=1))
    assert response.status_code == 429
    body = response.json()
    assert body["error"]["type"] == "LlmCallsLimitExceededError"
    assert len(body["events"]) == 2  # the call and its tool response were stored before


async def test_the_requests_retry_attempts_apply():
    agent = tool_agent(http_error(503), "recovered")
    async with served(agent) as client:
        session_id = await create_session(client)
        with fake_clock() as clock:
            response = await client.post("/run", json=run_body(session_id, retry_max_attempts=2))
    assert response.status_code == 200
    assert response.json()["events"][0]["content"]["parts"][0]["text"] == "recovered"
    assert len(clock.sleeps) == 1


async def test_a_model_failure_is_502_with_the_providers_status():
    async with served(tool_agent(http_error(503))) as client:
        session_id = await create_session(client)
        response = await client.post("/run", json=run_body(session_id))
    assert response.status_code == 502
    error = response.json()["error"]
    assert (error["type"], error["status_code"], error["provider_status"]) == (
        "ModelHTTPError",
        502,
        503,
    )


async def test_an_unreadable_provider_answer_is_502_naming_the_provider():
    unreadable = ModelResponseError("anthropic sent invalid UTF-8", provider="anthropic")
    async with served(tool_agent(unreadable)) as client:
        session_id = await create_session(client)
        response = await client.post("/run", json=run_body(session_id))
    assert response.status_code == 502
    error = response.json()["error"]
    assert (error["type"], error["status_code"], error["provider"]) == (
        "ModelResponseError",
        502,
        "anthropic",
    )
    assert "invalid UTF-8" in error["message"] and "agent" not in error["message"]


async def test_a_bug_in_a_callback_is_500_without_its_message():
    def explode(**_: Any) -> None:
        raise RuntimeError("secret=hunter2")

    agent = LlmAgent(name=APP, model=ScriptedLlm(["x"]), before_model_callback=explode)
    async with served(agent) as client:
        session_id = await create_session(client)
        response = await client.post("/run", json=run_body(session_id))
    assert response.status_code == 500
    assert response.json()["error"]["type"] == "RuntimeError"
    assert "hunter2" not in response.text


async def test_an_unknown_session_is_404(client: httpx.AsyncClient):
    response = await client.post("/run", json=run_body("missing"))
    assert response.status_code == 404


async def test_another_app_name_is_404(client: httpx.AsyncClient):
    session_id = await create_session(client)
    response = await client.post("/run", json={**run_body(session_id), "app_name": "other"})
    assert response.status_code == 404


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ("", "new_message"),
        ({"role": "model", "parts": [{"text": "x"}]}, "new_message.role"),
        ({"role": "user", "parts": []}, "new_message.parts"),
        ({"role": "user", "parts": [{}]}, "new_message.parts.0"),
        ({"role": "user", "parts": [{"function_call": {"name": "t"}}]}, "new_message.parts.0"),
    ],
)
async def test_a_message_a_user_cannot_send_is_422_naming_the_field(
    client: httpx.AsyncClient, message: Any, field: str
):
    session_id = await create_session(client)
    response = await client.post("/run", json={**run_body(session_id), "new_message": message})
    assert response.status_code == 422
    assert response.json()["error"]["fields"][0]["field"] == field


async def test_a_body_over_the_limit_is_413():
    async with served(echo_agent(), ServerLimits(max_body_bytes=200)) as client:
        session_id = await create_session(client)
        response = await client.post("/run", json=run_body(session_id, "x" * 300))
    assert response.status_code == 413


async def test_a_turn_that_lost_the_race_for_the_session_is_409(tmp_path: Path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'shared.db'}"
    gate = Gate()
    slow_store, fast_store = SqlSessionService(url), SqlSessionService(url)
    slow_app = create_app(gated_agent(gate), slow_store)
    fast_app = create_app(echo_agent(), fast_store)
    async with running(slow_app) as slow, running(fast_app) as fast:
        session_id = await create_session(slow)
        slow_turn = asyncio.create_task(slow.post("/run", json=run_body(session_id, "slow")))
        await gate.entered.wait()
        assert (await fast.post("/run", json=run_body(session_id, "fast"))).status_code == 200
        gate.release.set()
        response = await slow_turn
    await slow_store.close()
    await fast_store.close()
    assert response.status_code == 409
    assert response.json()["error"]["type"] == "StaleSessionError"
