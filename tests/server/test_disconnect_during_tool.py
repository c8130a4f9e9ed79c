"""A client that closes its stream while a tool runs leaves a session the next turn can use."""

from __future__ import annotations

import asyncio
import contextlib

from steadyflow import LlmAgent
from steadyflow.durable import INTERRUPTED_RESPONSE
from steadyflow.server import create_app
from steadyflow.sessions import InMemorySessionService, InvocationStatus
from steadyflow.testing import ScriptedLlm, call
from tests.durable.test_cancelled_turn import SlowTool, unpaired_calls
from tests.server.harness import APP, USER, create_session, read_sse, run_body, running


async def test_closing_the_sse_stream_during_a_tool_stores_its_outcome_and_the_next_turn_runs():
    tool = SlowTool()
    model = ScriptedLlm([call("refund", {"order_id": "7"}), "Refund 7 may have gone through."])
    store = InMemorySessionService()
    app = create_app(LlmAgent(name=APP, model=model, tools=[tool.refund]), store)
    async with running(app) as client:
        session_id = await create_session(client)

        async def stream() -> None:
            async with client.stream(
                "POST", "/run_sse", json=run_body(session_id, "refund 7")
            ) as r:
                async for _ in read_sse(r):
                    pass

        request = asyncio.create_task(stream())
        await asyncio.wait_for(tool.entered.wait(), 10)
        request.cancel()  # httpx drops the connection mid-stream
        with contextlib.suppress(asyncio.CancelledError):
            await request
        await asyncio.wait_for(app.state.turns.wait_idle(), 10)
        resume = await client.post(f"/apps/{APP}/users/{USER}/sessions/{session_id}/resume")
        followup = await client.post("/run", json=run_body(session_id, "well?"))

    (record, _) = await store.list_invocations(app_name=APP, user_id=USER, session_id=session_id)
    assert record.status is InvocationStatus.CANCELLED
    assert resume.status_code == 409 and "cancelled" in resume.json()["error"]["message"]
    assert followup.status_code == 200, followup.text
    events = followup.json()["events"]
    assert events[-1]["content"]["parts"][0]["text"] == "Refund 7 may have gone through."
    assert unpaired_calls(model.requests[-1]) == []
    results = [
        p.function_response.response
        for c in model.requests[-1].contents
        for p in c.parts
        if p.function_response is not None
    ]
    assert results == [INTERRUPTED_RESPONSE]
