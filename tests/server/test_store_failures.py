"""A database that refuses writes answers 503 with a JSON error, on every endpoint that writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event

from steadyflow.server import create_app
from steadyflow.sessions.sql import SqlSessionService
from tests.server.harness import APP, USER, echo_agent, run_body, running

SECRET_TEXT = "my card is 4242-4242"


def read_only(service: SqlSessionService) -> SqlSessionService:
    @event.listens_for(service.engine.sync_engine, "connect")
    def query_only(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA query_only=ON")
        cursor.close()

    return service


async def test_a_read_only_database_is_503_for_a_new_session_and_a_turn(tmp_path: Path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'sessions.db'}"
    writable = SqlSessionService(url)
    session = await writable.create_session(app_name=APP, user_id=USER)
    await writable.close()
    service = read_only(SqlSessionService(url))
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
