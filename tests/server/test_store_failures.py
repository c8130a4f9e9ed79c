"""A database that refuses writes answers 503 with a JSON error, on every endpoint that writes."""

from __future__ import annotations

from pathlib import Path

from steadyflow import LlmAgent
from steadyflow.server import ServerLimits, create_app
from steadyflow.sessions.sql import SqlSessionService
from steadyflow.testing import ScriptedLlm
from tests.server.harness import APP, USER, echo_agent, run_body, running
from tests.support.sqlite_faults import READ_ONLY, pragma_on_connect

SECRET_TEXT = "my card is 4242-4242"


async def test_a_read_only_database_is_503_for_a_new_session_and_a_turn(tmp_path: Path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'sessions.db'}"
    writable = SqlSessionService(url)
    session = await writable.create_session(app_name=APP, user_id=USER)
    await writable.close()
    service = SqlSessionService(url)
    with pragma_on_connect(service.engine.sync_engine, READ_ONLY):
        async with running(create_app(echo_agent(), service)) as client:
            created = await client.post(f"/apps/{APP}/users/{USER}/sessions", json={})
            turn = await client.post("/run", json=run_body(session.id, text=SECRET_TEXT))
            listed = await client.get(f"/apps/{APP}/users/{USER}/sessions")
        await service.close()
    assert created.status_code == 503
    assert created.json()["error"]["type"] == "session_store_unavailable"
    assert turn.status_code == 503
    error = turn.json()["error"]
    assert (error["type"], error["status_code"]) == ("SessionStoreError", 503)
    for response in (created, turn):
        assert "readonly" in response.text and "sessions.db" in response.text
        assert "INSERT" not in response.text and SECRET_TEXT not in response.text
    assert listed.status_code == 200 and len(listed.json()) == 1


async def test_an_answer_over_the_stores_max_event_bytes_is_507(tmp_path: Path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'sessions.db'}"
    service = SqlSessionService(url, max_event_bytes=4096)
    agent = LlmAgent(name=APP, model=ScriptedLlm(["z" * 10_000]))
    async with running(create_app(agent, service)) as client:
        session_id = (await client.post(f"/apps/{APP}/users/{USER}/sessions")).json()["id"]
        turn = await client.post("/run", json=run_body(session_id))
        stored = (await client.get(f"/apps/{APP}/users/{USER}/sessions/{session_id}")).json()
    await service.close()
    assert turn.status_code == 507
    assert turn.json()["error"]["type"] == "EventTooLargeError"
    assert [e["author"] for e in stored["events"]] == ["user"]


async def test_an_answer_over_the_servers_max_response_bytes_is_502(tmp_path: Path):
    agent = LlmAgent(name=APP, model=ScriptedLlm(["z" * 10_000]))
    store = SqlSessionService(f"sqlite:///{tmp_path / 's.db'}")
    app = create_app(agent, store, ServerLimits(max_response_bytes=4096))
    async with running(app) as client:
        session_id = (await client.post(f"/apps/{APP}/users/{USER}/sessions")).json()["id"]
        turn = await client.post("/run", json=run_body(session_id))
    await store.close()
    assert turn.status_code == 502
    assert turn.json()["error"]["type"] == "ModelResponseTooLargeError"
