"""Two ``steadyflow serve`` processes against one PostgreSQL: shared sessions, stale turns.

Each process has its own event cache; the store's revision check is what
keeps them honest, so a turn that loses the race for a session gets 409.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tests.server.harness import APP, USER, run_body

pytestmark = pytest.mark.postgres

AGENT = Path(__file__).with_name("process_agent.py")
ROOT = Path(__file__).resolve().parents[2]
LISTENING = re.compile(rb"Uvicorn running on (http://127\.0\.0\.1:\d+)")


@contextlib.asynccontextmanager
async def serve_process(session_url: str) -> AsyncIterator[tuple[httpx.AsyncClient, int]]:
    """``steadyflow serve`` in a child process; yields a client and the child's pid."""
    argv = [sys.executable, "-m", "steadyflow", "serve", str(AGENT)]
    argv += ["--port", "0", "--session-db", session_url]
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'src'}"}
    process = await asyncio.create_subprocess_exec(
        *argv, env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
    )
    assert process.stderr is not None
    drain: asyncio.Task[None] | None = None
    try:
        url = await asyncio.wait_for(_listening_url(process.stderr), 60)
        drain = asyncio.create_task(_drain(process.stderr))  # a full pipe would block the server
        async with httpx.AsyncClient(base_url=url, timeout=30, verify=False) as client:
            yield client, process.pid
    finally:
        if process.returncode is None:
            process.terminate()
        await process.wait()
        if drain is not None:
            await drain


async def _listening_url(stderr: asyncio.StreamReader) -> str:
    seen = b""
    while line := await stderr.readline():
        seen += line
        if match := LISTENING.search(line):
            return match.group(1).decode()
    raise AssertionError(f"server exited before listening:\n{seen.decode(errors='replace')}")


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.readline():
        pass


async def test_a_session_made_by_one_process_runs_in_the_other(postgres_url: str):
    async with (
        serve_process(postgres_url) as (first, _),
        serve_process(postgres_url) as (
            second,
            second_pid,
        ),
    ):
        created = await first.post(f"/apps/{APP}/users/{USER}/sessions")
        session_id = created.json()["id"]
        ran = await second.post("/run", json=run_body(session_id, "hello"))
        seen_by_first = await first.get(f"/apps/{APP}/users/{USER}/sessions/{session_id}")
    assert ran.status_code == 200
    assert ran.json()["events"][0]["content"]["parts"][0]["text"] == (
        f"pid {second_pid} echoes hello"
    )
    texts = [
        e["content"]["parts"][0]["text"] for e in seen_by_first.json()["events"] if e["content"]
    ]
    assert texts == ["hello", f"pid {second_pid} echoes hello"]


async def test_the_turn_that_loses_the_race_across_processes_gets_409(postgres_url: str):
    held = asyncio.Event()
    holders: list[asyncio.StreamWriter] = []

    async def gate(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        holders.append(writer)
        held.set()

    gate_server = await asyncio.start_server(gate, "127.0.0.1", 0)
    port = gate_server.sockets[0].getsockname()[1]
    async with serve_process(postgres_url) as (slow, _), serve_process(postgres_url) as (fast, _):
        session_id = (await slow.post(f"/apps/{APP}/users/{USER}/sessions")).json()["id"]
        slow_turn = asyncio.create_task(
            slow.post("/run", json=run_body(session_id, f"hold:{port}"))
        )
        await asyncio.wait_for(held.wait(), 30)
        fast_turn = await fast.post("/run", json=run_body(session_id, "quick"))
        holders[0].write(b"!")
        await holders[0].drain()
        lost = await slow_turn
        holders[0].close()
        await holders[0].wait_closed()
        stored = await fast.get(f"/apps/{APP}/users/{USER}/sessions/{session_id}")
    gate_server.close()
    await gate_server.wait_closed()
    assert fast_turn.status_code == 200
    assert lost.status_code == 409
    assert lost.json()["error"]["type"] == "StaleSessionError"
    texts = [e["content"]["parts"][0]["text"] for e in stored.json()["events"] if e["content"]]
    assert texts[0] == f"hold:{port}" and texts[1] == "quick"
    assert not any("echoes hold" in t for t in texts)
