"""One unreadable session never breaks a listing over HTTP (what the viewer shows)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx

from steadyflow.server import create_app
from steadyflow.sessions.sql import SqlSessionService
from tests.server.harness import APP, USER, create_session, echo_agent, run_body, running

LISTING = f"/apps/{APP}/users/{USER}/sessions"


async def listing_after_a_bad_row(db: Path) -> tuple[str, str, httpx.Response]:
    """Two answered sessions, the second's model event overwritten, then a fresh server lists."""
    url = f"sqlite+aiosqlite:///{db}"
    service = SqlSessionService(url)
    try:
        async with running(create_app(echo_agent(), service)) as client:
            good, broken = await create_session(client), await create_session(client)
            for session_id in (good, broken):
                answered = await client.post("/run", json=run_body(session_id, "first"))
                assert answered.status_code == 200
    finally:
        await service.close()
    with sqlite3.connect(db) as raw:
        changed = raw.execute(
            "UPDATE steadyflow_events SET data = ? WHERE session_id = ? AND seq = 2",
            ('{"author": ["not", "a", "name"], "invocation_id": 7}', broken),
        ).rowcount
    assert changed == 1
    service = SqlSessionService(url)  # a fresh process: nothing cached
    try:
        async with running(create_app(echo_agent(), service)) as client:
            return good, broken, await client.get(LISTING)
    finally:
        await service.close()


async def test_a_bad_event_row_is_listed_as_unreadable_and_the_others_as_usual(tmp_path: Path):
    good, broken, response = await listing_after_a_bad_row(tmp_path / "sessions.db")

    assert response.status_code == 200
    rows = {row["id"]: row for row in response.json()}
    assert rows[broken]["last_status"] == "unreadable"
    assert rows[good]["last_status"] == "completed"
    assert rows[good]["first_message"] == "first"
