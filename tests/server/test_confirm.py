"""Confirmation answers through ``/run`` and ``/run_sse``; ``POST .../resume`` for cut turns."""

from __future__ import annotations

import asyncio
import socket
import sys
import time
from typing import Any

import httpx

from steadyflow import Content, Event, FunctionTool, LlmAgent
from steadyflow.server import create_app
from steadyflow.sessions import InMemorySessionService, InvocationOwner, InvocationRecord
from steadyflow.testing import ScriptedLlm, call
from steadyflow.tools import REQUEST_CONFIRMATION_NAME
from tests.server.harness import APP, USER, create_session, read_sse, run_body, running

BASE = f"/apps/{APP}/users/{USER}/sessions"


def refund_agent(steps: list[Any], runs: list[str]) -> LlmAgent:
    def refund(order_id: str) -> dict:
        """Refund an order.

        Args:
            order_id: the order.
        """
        runs.append(order_id)
        return {"refunded": order_id}

    tool = FunctionTool(refund, require_confirmation=True)
    return LlmAgent(name=APP, model=ScriptedLlm(steps), tools=[tool])


def answer_body(session_id: str, request_id: str, response: dict[str, Any]) -> dict[str, Any]:
    part = {"function_response": {"id": request_id, "name": REQUEST_CONFIRMATION_NAME}}
    part["function_response"]["response"] = response
    return {**run_body(session_id), "new_message": {"role": "user", "parts": [part]}}


def pause_of(events: list[dict[str, Any]]) -> dict[str, Any]:
    (call_part,) = events[-1]["content"]["parts"]
    assert events[-1]["long_running_tool_ids"] == [call_part["function_call"]["id"]]
    return call_part["function_call"]


async def statuses(client: httpx.AsyncClient, session_id: str) -> list[str]:
    return [r["status"] for r in (await client.get(f"{BASE}/{session_id}/invocations")).json()]


async def test_a_pause_is_answered_through_the_run_endpoint():
    runs: list[str] = []
    agent = refund_agent([call("refund", {"order_id": "7"}), "Refunded."], runs)
    async with running(create_app(agent, InMemorySessionService())) as client:
        session_id = await create_session(client)
        paused = (await client.post("/run", json=run_body(session_id, "refund 7"))).json()
        request = pause_of(paused["events"])
        assert request["args"]["original_call"]["args"] == {"order_id": "7"}
        assert await statuses(client, session_id) == ["waiting"] and runs == []

        answer = answer_body(session_id, request["id"], {"confirmed": True})
        async with client.stream("POST", "/run_sse", json=answer) as response:
            assert response.status_code == 200
            messages = [m async for m in read_sse(response)]

        assert runs == ["7"]
        assert messages[-1].event == "done"
        texts = [m.data["content"]["parts"][0].get("text") for m in messages[:-1]]
        assert texts[-1] == "Refunded."
        assert {m.data["invocation_id"] for m in messages[:-1]} == {
            paused["events"][0]["invocation_id"]
        }
        assert await statuses(client, session_id) == ["completed"]


async def test_a_bad_answer_is_refused_before_the_stream_and_stores_nothing():
    agent = refund_agent([call("refund", {"order_id": "7"})], [])
    async with running(create_app(agent, InMemorySessionService())) as client:
        session_id = await create_session(client)
        paused = (await client.post("/run", json=run_body(session_id, "refund 7"))).json()
        request_id = pause_of(paused["events"])["id"]
        before = (await client.get(f"{BASE}/{session_id}")).json()["revision"]

        malformed = answer_body(session_id, request_id, {"confirmed": "yes"})
        refused = await client.post("/run_sse", json=malformed)
        assert refused.status_code == 422
        assert refused.json()["error"]["type"] == "invalid_confirmation"
        unknown = await client.post(
            "/run", json=answer_body(session_id, "sf-x", {"confirmed": True})
        )
        assert unknown.status_code == 409
        assert unknown.json()["error"]["type"] == "confirmation_not_waiting"
        assert "no confirmation request 'sf-x'" in unknown.json()["error"]["message"]

        assert (await client.get(f"{BASE}/{session_id}")).json()["revision"] == before
        assert await statuses(client, session_id) == ["waiting"]


async def killed_after_the_user_message(store: InMemorySessionService, session_id: str) -> None:
    """Store what a process killed right after the user's message leaves: event and record."""
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
        lease_expires_at=time.time() + 60,  # the lease holds, but its owner is gone
    )
    user = Event(invocation_id="e-cut", author="user", content=Content.from_text("hi"))
    await store.append_event_and_record(session, user, record)


async def test_resume_continues_a_turn_whose_process_died():
    store = InMemorySessionService()
    model = ScriptedLlm(["answered after the crash"])
    async with running(create_app(LlmAgent(name=APP, model=model), store)) as client:
        session_id = await create_session(client)
        nothing = await client.post(f"{BASE}/{session_id}/resume")
        assert nothing.status_code == 409
        assert nothing.json()["error"]["type"] == "nothing_to_resume"
        await killed_after_the_user_message(store, session_id)
        missing = await client.post(f"{BASE}/{session_id}/resume", json={"invocation_id": "e-no"})
        assert missing.status_code == 404

        body = {"invocation_id": "e-cut"}
        async with client.stream("POST", f"{BASE}/{session_id}/resume", json=body) as response:
            assert response.status_code == 200
            messages = [m async for m in read_sse(response)]

        assert messages[-1].event == "done"
        assert messages[-2].data["content"]["parts"][0]["text"] == "answered after the crash"
        assert [c.text for c in model.requests[0].contents] == ["hi"]  # the message, once
        records = (await client.get(f"{BASE}/{session_id}/invocations")).json()
        assert [(r["id"], r["status"], r["resume_count"], r["llm_calls"]) for r in records] == [
            ("e-cut", "completed", 1, 2)  # the attempt that may have been in flight counts
        ]
        again = await client.post(f"{BASE}/{session_id}/resume")
        assert again.status_code == 409


async def test_resume_refuses_an_invocation_waiting_for_a_person():
    agent = refund_agent([call("refund", {"order_id": "7"})], [])
    async with running(create_app(agent, InMemorySessionService())) as client:
        session_id = await create_session(client)
        await client.post("/run", json=run_body(session_id, "refund 7"))
        refused = await client.post(f"{BASE}/{session_id}/resume", json={})
        assert refused.status_code == 409
        assert "waiting for a confirmation" in refused.json()["error"]["message"]
