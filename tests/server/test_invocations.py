"""Invocation endpoints: a session's records and one record with its trace."""

from __future__ import annotations

import os

import httpx

from tests.server.harness import APP, USER, create_session, run_body

BASE = f"/apps/{APP}/users/{USER}/sessions"


async def test_invocations_lists_the_sessions_records_with_their_traces(
    client: httpx.AsyncClient,
):
    session_id = await create_session(client)
    first = (await client.post("/run", json=run_body(session_id, "one"))).json()
    await client.post("/run", json=run_body(session_id, "two"))
    response = await client.get(f"{BASE}/{session_id}/invocations")
    assert response.status_code == 200
    records = response.json()
    assert [r["status"] for r in records] == ["completed", "completed"]
    assert records[0]["id"] == first["events"][0]["invocation_id"]
    assert records[0]["owner"]["pid"] == os.getpid() and records[0]["lease_expires_at"] is None
    assert records[0]["trace"]["invocation_id"] == records[0]["id"]
    session = (await client.get(f"{BASE}/{session_id}")).json()
    assert [e["author"] for e in session["events"]] == ["user", APP, "user", APP]


async def test_one_invocation_reads_back_and_an_unknown_one_is_404(client: httpx.AsyncClient):
    session_id = await create_session(client)
    ran = (await client.post("/run", json=run_body(session_id, "one"))).json()
    invocation = ran["events"][0]["invocation_id"]
    record = (await client.get(f"{BASE}/{session_id}/invocations/{invocation}")).json()
    assert (record["id"], record["llm_calls"], record["agent"]) == (invocation, 1, APP)
    missing = await client.get(f"{BASE}/{session_id}/invocations/e-nope")
    assert missing.status_code == 404
    assert missing.json()["error"]["type"] == "invocation_not_found"
    assert (await client.get(f"{BASE}/nope/invocations")).status_code == 404
