"""Usage limits over HTTP: a request's own, bounded by the operator's per-invocation ceilings."""

from __future__ import annotations

import asyncio
import socket
import sys
import time
from decimal import Decimal
from typing import Any

import httpx
import pytest

from steadyflow import Content, Event, GenerateContentConfig, LlmAgent
from steadyflow.errors import ConfigurationError
from steadyflow.server import ServerLimits, create_app
from steadyflow.sessions import InMemorySessionService, InvocationOwner, InvocationRecord
from steadyflow.testing import ScriptedLlm, call
from steadyflow.usage import ModelPrice, UsageLimits
from tests.server.harness import (
    APP,
    USER,
    create_session,
    lookup_order,
    read_sse,
    run_body,
    running,
)

SESSIONS = f"/apps/{APP}/users/{USER}/sessions"


def served(model: ScriptedLlm, limits: ServerLimits | None = None) -> Any:
    # Hard limits reserve the most an answer may write: the agent bounds it.
    bounded = GenerateContentConfig(max_output_tokens=100)
    agent = LlmAgent(name=APP, model=model, tools=[lookup_order], generate_content_config=bounded)
    return running(create_app(agent, InMemorySessionService(), limits))


async def stored_limits(client: httpx.AsyncClient, session_id: str) -> dict[str, Any]:
    (record,) = (await client.get(f"{SESSIONS}/{session_id}/invocations")).json()
    limits: dict[str, Any] = record["usage"].get("limits", {})
    return limits


async def test_a_requests_usage_limit_stops_its_turn_before_the_call():
    model = ScriptedLlm(["never sent"])
    async with served(model) as client:
        session_id = await create_session(client)
        body = run_body(session_id, "hi", usage_limits={"max_total_tokens": 5})
        response = await client.post("/run", json=body)
        assert response.status_code == 429
        error = response.json()["error"]
        assert error["type"] == "UsageLimitExceededError"
        assert "max_total_tokens (5 tokens) would be exceeded" in error["message"]
        assert await stored_limits(client, session_id) == {"max_total_tokens": 5}
    assert model.requests == []


PRICES = {"scripted-model": ModelPrice(input=1, output=2)}


async def test_a_limit_above_the_operators_ceiling_is_a_422_naming_it():
    limits = ServerLimits(
        max_usage=UsageLimits(max_total_tokens=1000, max_cost=Decimal("0.5")), prices=PRICES
    )
    model = ScriptedLlm(["never sent"])
    async with served(model, limits) as client:
        session_id = await create_session(client)
        asked = {"max_total_tokens": 5000, "max_cost": 2}
        response = await client.post("/run", json=run_body(session_id, usage_limits=asked))
        assert response.status_code == 422
        fields = {e["field"]: e["message"] for e in response.json()["error"]["fields"]}
        assert fields == {
            "run_config.usage_limits.max_total_tokens": (
                "must be at most 1000 (the server's limit), got 5000"
            ),
            "run_config.usage_limits.max_cost": "must be at most 0.5 (the server's limit), got 2.0",
        }
        assert (await client.get(f"{SESSIONS}/{session_id}/invocations")).json() == []
    assert model.requests == []


async def test_the_ceilings_apply_to_a_request_that_names_no_limit():
    model = ScriptedLlm([call("lookup_order", {"order_id": "812"}), "Order 812 has shipped."])
    limits = ServerLimits(
        max_usage=UsageLimits(max_total_tokens=1000, max_cost=Decimal("0.5")), prices=PRICES
    )
    async with served(model, limits) as client:
        session_id = await create_session(client)
        response = await client.post("/run", json=run_body(session_id, "Where is 812?"))
        assert response.json()["error"] is None
        assert await stored_limits(client, session_id) == {
            "max_total_tokens": 1000,
            "max_cost": "0.5",
        }


async def test_a_request_may_ask_for_less_than_the_ceiling_and_the_default():
    limits = ServerLimits(
        max_usage=UsageLimits(max_total_tokens=1000),
        default_usage=UsageLimits(max_total_tokens=800, max_output_tokens=300),
    )
    model = ScriptedLlm(["Hello."])
    async with served(model, limits) as client:
        session_id = await create_session(client)
        body = run_body(session_id, usage_limits={"max_total_tokens": 600})
        assert (await client.post("/run", json=body)).json()["error"] is None
        assert await stored_limits(client, session_id) == {
            "max_output_tokens": 300,
            "max_total_tokens": 600,
        }


async def test_a_resumed_invocation_keeps_the_limits_it_started_with():
    store = InMemorySessionService()
    model = ScriptedLlm(["never sent"])
    bounded = GenerateContentConfig(max_output_tokens=100)
    agent = LlmAgent(name=APP, model=model, generate_content_config=bounded)
    limits = ServerLimits(max_usage=UsageLimits(max_total_tokens=1000))
    async with running(create_app(agent, store, limits)) as client:
        session_id = await create_session(client)
        session = await store.get_session(app_name=APP, user_id=USER, session_id=session_id)
        assert session is not None
        dead = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
        await dead.wait()
        record = InvocationRecord(
            id="e-cut",
            app_name=APP,
            user_id=USER,
            session_id=session_id,
            agent=APP,
            max_llm_calls=5,
            owner=InvocationOwner(socket.gethostname(), dead.pid, 0.0),
            lease_expires_at=time.time() + 60,
            usage={"limits": {"max_total_tokens": 5}},
        )
        user = Event(invocation_id="e-cut", author="user", content=Content.from_text("hi"))
        await store.append_event_and_record(session, user, record)
        path = f"{SESSIONS}/{session_id}/resume"
        async with client.stream("POST", path, json={"invocation_id": "e-cut"}) as response:
            messages = [m async for m in read_sse(response)]
        assert messages[-1].event == "error"
        assert messages[-1].data["type"] == "UsageLimitExceededError"
        assert "max_total_tokens (5 tokens)" in messages[-1].data["message"]
    assert model.requests == []


async def test_a_cost_limit_on_a_model_with_no_price_is_a_422_before_the_turn():
    model = ScriptedLlm(["never sent"])
    async with served(model) as client:
        session_id = await create_session(client)
        body = run_body(session_id, usage_limits={"max_cost": 0.01})
        response = await client.post("/run", json=body)
        assert response.status_code == 422
        (field,) = response.json()["error"]["fields"]
        assert field["field"] == "run_config.usage_limits.max_cost"
        assert "no price is known for model 'scripted-model'" in field["message"]
        assert (await client.get(f"{SESSIONS}/{session_id}/invocations")).json() == []
    assert model.requests == []


def test_an_operators_cost_ceiling_needs_a_price_for_every_model():
    agent = LlmAgent(name=APP, model=ScriptedLlm([]))
    limits = ServerLimits(max_usage=UsageLimits(max_cost=Decimal("1")))
    with pytest.raises(ConfigurationError, match="no price is known for model 'scripted-model'"):
        create_app(agent, InMemorySessionService(), limits)
    priced = ServerLimits(max_usage=UsageLimits(max_cost=Decimal("1")), prices=PRICES)
    assert create_app(agent, InMemorySessionService(), priced) is not None


async def test_a_token_limit_on_a_model_with_no_bound_on_its_answers_is_a_422_before_the_turn():
    model = ScriptedLlm(["never sent"])
    agent = LlmAgent(name=APP, model=model, tools=[lookup_order])  # no max_output_tokens
    async with running(create_app(agent, InMemorySessionService())) as client:
        session_id = await create_session(client)
        body = run_body(session_id, usage_limits={"max_total_tokens": 5000})
        response = await client.post("/run", json=body)
        assert response.status_code == 422
        (field,) = response.json()["error"]["fields"]
        assert field["field"] == "run_config.usage_limits"
        assert (
            "no bound on an answer's length is known for model 'scripted-model'"
            in (field["message"])
        )
        assert (await client.get(f"{SESSIONS}/{session_id}/invocations")).json() == []
    assert model.requests == []
