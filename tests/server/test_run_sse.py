"""``POST /run_sse``: events as they happen, a terminal ``done`` or ``error``, disconnects."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import httpx
import pytest

from steadyflow import LlmAgent
from steadyflow.errors import ModelResponseError
from steadyflow.server import ServerLimits, create_app
from steadyflow.sessions import InMemorySessionService, InvocationStatus
from steadyflow.testing import ScriptedLlm, Stream, call, http_error
from tests.server.harness import (
    APP,
    USER,
    Gate,
    HoldingLlm,
    SseMessage,
    create_session,
    lookup_order,
    read_sse,
    run_body,
    running,
)
from tests.support.payloads import nulls


async def stream_turn(client: httpx.AsyncClient, body: dict[str, Any]) -> list[SseMessage]:
    async with client.stream("POST", "/run_sse", json=body) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        return [m async for m in read_sse(response)]


def served(*steps: Any, limits: ServerLimits | None = None) -> Any:
    agent = LlmAgent(name=APP, model=ScriptedLlm(list(steps)), tools=[lookup_order])
    return running(create_app(agent, InMemorySessionService(), limits))


def shape(message: SseMessage) -> tuple[str, Any]:
    if message.event != "event":
        return (message.event, None)
    parts = message.data["content"]["parts"]
    part = parts[0]
    what = part.get("text") or (part.get("function_call") or part.get("function_response"))["name"]
    return ("partial" if message.data.get("partial") else "complete", what)


async def test_partials_then_the_complete_event_then_done(client: httpx.AsyncClient):
    session_id = await create_session(client)
    messages = await stream_turn(client, run_body(session_id, "hi"))
    assert [shape(m) for m in messages] == [
        ("partial", "echo: "),
        ("partial", "hi"),
        ("complete", "echo: hi"),
        ("done", None),
    ]
    assert messages[-1].data == {"invocation_id": messages[0].data["invocation_id"], "events": 3}


async def test_a_tool_turn_streams_call_response_and_answer_in_order():
    steps = (call("lookup_order", {"order_id": "812"}), Stream(["Shipped", "!"]))
    async with served(*steps) as client:
        session_id = await create_session(client)
        messages = await stream_turn(client, run_body(session_id))
    assert [shape(m) for m in messages] == [
        ("complete", "lookup_order"),
        ("complete", "lookup_order"),
        ("partial", "Shipped"),
        ("partial", "!"),
        ("complete", "Shipped!"),
        ("done", None),
    ]


async def test_a_failure_mid_stream_ends_with_an_error_event_after_http_200():
    broken = Stream(["Order 812 "], error=http_error(503), error_after=1)
    async with served(broken) as client:
        session_id = await create_session(client)
        messages = await stream_turn(client, run_body(session_id))
    assert [shape(m) for m in messages] == [("partial", "Order 812 "), ("error", None)]
    error = messages[-1].data
    assert (error["type"], error["status_code"], error["provider_status"]) == (
        "ModelHTTPError",
        502,
        503,
    )


async def test_an_unreadable_provider_answer_mid_stream_is_a_502_error_naming_the_provider():
    unreadable = ModelResponseError("gemini answered 200 with an error body", provider="gemini")
    broken = Stream(["Order 812 "], error=unreadable, error_after=1)
    async with served(broken) as client:
        session_id = await create_session(client)
        messages = await stream_turn(client, run_body(session_id))
    assert [shape(m) for m in messages] == [("partial", "Order 812 "), ("error", None)]
    error = messages[-1].data
    assert (error["type"], error["status_code"], error["provider"]) == (
        "ModelResponseError",
        502,
        "gemini",
    )


async def test_an_exhausted_budget_ends_with_a_429_error_event():
    async with served(call("lookup_order", {"order_id": "1"}), "unused") as client:
        session_id = await create_session(client)
        messages = await stream_turn(client, run_body(session_id, max_llm_calls=1))
    assert messages[-1].event == "error"
    assert messages[-1].data["status_code"] == 429


async def test_an_unknown_session_is_404_before_any_stream(client: httpx.AsyncClient):
    response = await client.post("/run_sse", json=run_body("missing"))
    assert response.status_code == 404


async def test_a_limit_violation_is_422_before_any_stream(client: httpx.AsyncClient):
    session_id = await create_session(client)
    response = await client.post("/run_sse", json=run_body(session_id, max_llm_calls=500))
    assert response.status_code == 422
    assert response.json()["error"]["fields"][0]["field"] == "run_config.max_llm_calls"


async def test_streaming_mode_none_sends_only_complete_events(client: httpx.AsyncClient):
    session_id = await create_session(client)
    messages = await stream_turn(client, run_body(session_id, "x", streaming_mode="none"))
    assert [shape(m) for m in messages] == [("complete", "echo: x"), ("done", None)]


async def test_an_idle_stream_gets_keep_alive_comments():
    gate = Gate()
    app = create_app(
        LlmAgent(name=APP, model=HoldingLlm(gate)),
        InMemorySessionService(),
        ServerLimits(sse_ping_interval=0.01),
    )
    seen: list[str] = []
    async with running(app) as client:
        session_id = await create_session(client)
        async with client.stream("POST", "/run_sse", json=run_body(session_id)) as response:
            async for message in read_sse(response):
                seen.append(message.event)
                if message.event == "comment":
                    gate.release.set()
    assert "comment" in seen
    assert seen[-1] == "done"


@pytest.mark.parametrize("route", ["/run_sse", "/run"])
async def test_a_client_that_disconnects_cancels_its_turn(route: str):
    gate = Gate()
    model = HoldingLlm(gate)
    store = InMemorySessionService()
    app = create_app(LlmAgent(name=APP, model=model), store)
    async with running(app) as client:
        session_id = await create_session(client)
        request = asyncio.create_task(client.post(route, json=run_body(session_id, "first")))
        await gate.entered.wait()
        request.cancel()  # httpx drops the connection
        with contextlib.suppress(asyncio.CancelledError):
            await request
        await asyncio.wait_for(gate.cancelled.wait(), 10)
        await asyncio.wait_for(app.state.turns.wait_idle(), 10)
        stored = await store.get_session(app_name=APP, user_id=USER, session_id=session_id)
        followup = await client.post("/run", json=run_body(session_id, "again"))
    assert model.finished_calls == 0
    assert stored is not None
    assert [e.author for e in stored.events] == ["user"]
    record, _ = await store.list_invocations(app_name=APP, user_id=USER, session_id=session_id)
    assert record.status is InvocationStatus.CANCELLED
    assert record.trace is not None and record.trace.status == "cancelled"
    assert followup.status_code == 200
    assert followup.json()["events"][0]["content"]["parts"][0]["text"] == "fresh answer"


async def test_sse_events_leave_out_null_fields():
    steps = [call("lookup_order", {"order_id": "812"}), Stream(["Order 812 ", "has shipped."])]
    async with served(*steps) as client:
        session_id = await create_session(client)
        body = run_body(session_id, "Where is 812?", streaming_mode="sse")
        messages = await stream_turn(client, body)
    events = [m.data for m in messages if m.event == "event"]
    assert len(events) >= 4 and any(e.get("partial") for e in events)
    assert [p for e in events for p in nulls(e)] == []
