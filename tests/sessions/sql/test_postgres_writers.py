"""Two processes appending to one PostgreSQL session at once lose and duplicate nothing."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from steadyflow.sessions.sql import SqlSessionService

from .pg_writer import APP, USER

pytestmark = pytest.mark.postgres
WRITER = Path(__file__).with_name("pg_writer.py")
APPENDS = 40


async def start_writer(url: str, name: str) -> asyncio.subprocess.Process:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(WRITER),
        url,
        "s1",
        str(APPENDS),
        name,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert (await proc.stdout.readline()).decode().strip() == "ready"
    return proc


async def finish(proc: asyncio.subprocess.Process) -> dict[str, list[str]]:
    assert proc.stdin is not None
    out, _ = await proc.communicate(b"go\n")
    assert proc.returncode == 0
    result: dict[str, list[str]] = json.loads(out.decode().strip().splitlines()[-1])
    return result


async def rows(service: SqlSessionService, sql: str) -> list[Any]:
    async with service.engine.connect() as conn:
        return list((await conn.execute(text(sql))).all())


async def test_each_racing_append_is_stored_once_or_rejected_as_stale(postgres_url: str) -> None:
    service = SqlSessionService(postgres_url)
    await service.create_session(app_name=APP, user_id=USER, session_id="s1")
    writers = [await start_writer(postgres_url, name) for name in ("a", "b")]

    a, b = await asyncio.gather(*(finish(w) for w in writers))

    stored = await rows(service, "SELECT id, author, seq FROM steadyflow_events ORDER BY seq")
    session = await service.get_session(app_name=APP, user_id=USER, session_id="s1")
    await service.close()
    assert session is not None
    for result in (a, b):
        assert len(result["stored"]) + len(result["rejected"]) == APPENDS
    assert len(a["rejected"]) + len(b["rejected"]) >= 1  # both first appends used revision 0
    assert [seq for _, _, seq in stored] == list(range(1, len(stored) + 1))
    assert [i for i, author, _ in stored if author == "a"] == a["stored"]
    assert [i for i, author, _ in stored if author == "b"] == b["stored"]
    assert len(stored) == len(a["stored"]) + len(b["stored"]) == session.revision
    by_id = {e.id: e for e in session.events}
    for name, result in (("a", a), ("b", b)):  # state moved with the writer's last stored event
        assert session.state[name] == by_id[result["stored"][-1]].actions.state_delta[name]
    assert session.state["app:last"] == session.events[-1].author
