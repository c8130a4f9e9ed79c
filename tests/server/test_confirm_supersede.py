"""A plain message via `/run` while a confirmation waits: superseded by default, or 409."""

from __future__ import annotations

from steadyflow import LlmAgent
from steadyflow.server import create_app
from steadyflow.sessions import InMemorySessionService
from steadyflow.testing import ScriptedLlm, call
from tests.flows.wire import refusals
from tests.server.harness import create_session, run_body, running
from tests.server.test_confirm import BASE, pause_of, refund_agent, statuses


def model_of(agent: LlmAgent) -> ScriptedLlm:
    assert isinstance(agent.model, ScriptedLlm)
    return agent.model


async def test_a_new_message_supersedes_the_waiting_refund():
    runs: list[str] = []
    agent = refund_agent([call("refund", {"order_id": "977"}), "OK, no refund."], runs)
    async with running(create_app(agent, InMemorySessionService())) as client:
        session_id = await create_session(client)
        pause_of(
            (await client.post("/run", json=run_body(session_id, "refund 977"))).json()["events"]
        )

        answer = await client.post("/run", json=run_body(session_id, "never mind"))

        assert answer.status_code == 200, answer.text
        assert answer.json()["events"][-1]["content"]["parts"][0]["text"] == "OK, no refund."
        assert runs == []
        assert await statuses(client, session_id) == ["superseded", "completed"]
        sent = model_of(agent).requests[1]
        (declined,) = [
            p.function_response for c in sent.contents for p in c.parts if p.function_response
        ]
        assert declined.response["reason"] == "superseded by a new message"
        assert refusals(sent) == {}


async def test_raise_answers_409_before_any_model_call_on_both_routes():
    runs: list[str] = []
    agent = refund_agent([call("refund", {"order_id": "977"}), "Refunded."], runs)
    async with running(create_app(agent, InMemorySessionService())) as client:
        session_id = await create_session(client)
        paused = (await client.post("/run", json=run_body(session_id, "refund 977"))).json()
        request_id = pause_of(paused["events"])["id"]
        before = (await client.get(f"{BASE}/{session_id}")).json()["revision"]

        body = run_body(session_id, "hello?", on_pending_confirmation="raise")
        for route in ("/run", "/run_sse"):
            refused = await client.post(route, json=body)
            assert refused.status_code == 409, refused.text
            error = refused.json()["error"]
            assert error["type"] == "confirmation_pending" and request_id in error["message"]

        assert len(model_of(agent).requests) == 1
        assert (await client.get(f"{BASE}/{session_id}")).json()["revision"] == before
        assert await statuses(client, session_id) == ["waiting"]
