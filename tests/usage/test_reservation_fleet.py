"""Processes sharing one cost cap on SQLite, PostgreSQL and Redis: it is never passed.

Four worker processes (``reservation_worker.py``) each run two invocations at
once through a real ``Runner`` against one app-wide ``SpendLimit``, with and
without ``max_output_tokens``; every answer is as long as the model allows.
Each attempt is charged exactly what it reserved, so whatever the
interleaving, the arithmetic says how many fit: the test asserts exactly
that many were answered and the settled total stays within the cap. A worker
killed while its attempt is in flight leaves a reservation that lapses.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TypeVar

import pytest

from steadyflow.sessions.sql import SqlSessionService
from steadyflow.usage.redis import RedisSpendStore
from steadyflow.usage.spend import SpendCheck, SpendEntry, SpendStore, to_nano

from .reservation_worker import CEILING, cost_of

pytestmark = pytest.mark.slow

WORKERS = 4
T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("reservation_worker.py")


@dataclass
class Fleet:
    """Where the workers keep spend, and how the test reads it back."""

    kind: str
    url: str
    prefix: str

    async def read(self, use: Callable[[SpendStore], Awaitable[T]]) -> T:
        """``use(store)`` on a fresh connection to the workers' spend store."""
        if self.kind == "redis":
            redis = RedisSpendStore(url=self.url, prefix=self.prefix)
            try:
                return await use(redis)
            finally:
                await redis.aclose()
        service = SqlSessionService(self.url)
        try:
            return await use(service.spend_store())
        finally:
            await service.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres), "redis"])
async def fleet(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Fleet]:
    """A shared spend store, its schema made before the workers start."""
    if request.param == "redis":
        server = request.getfixturevalue("redis_server")
        yield Fleet("redis", server.url(), f"fleet{os.urandom(4).hex()}:")
        return
    if request.param == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'fleet.db'}"
    else:
        url = request.getfixturevalue("postgres_url")
    service = SqlSessionService(url)
    await service.create_session(app_name="app", user_id="setup")  # the schema, made once
    await service.close()
    yield Fleet(request.param, url, "")


async def start_workers(fleet: Fleet, count: int, max_out: int, cap: Decimal, mode: str) -> list:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    workers = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            str(WORKER),
            fleet.kind,
            fleet.url,
            fleet.prefix,
            str(n),
            str(max_out),
            str(cap),
            mode,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=env,
        )
        for n in range(count)
    ]
    for worker in workers:
        assert worker.stdout is not None
        line = await asyncio.wait_for(worker.stdout.readline(), 60)
        assert line == b"ready\n"
    for worker in workers:  # all ready: let them go together
        assert worker.stdin is not None
        worker.stdin.write(b"go\n")
        await worker.stdin.drain()
    return workers


@pytest.mark.parametrize("max_out", [0, 250], ids=["ceiling", "max_output"])
async def test_worker_processes_never_settle_past_one_cost_cap(fleet: Fleet, max_out: int) -> None:
    about = cost_of(10, max_out or CEILING)  # one attempt's worst case, give or take its input
    cap = about * 3 + about / 2
    workers = await start_workers(fleet, WORKERS, max_out, cap, "run")
    outputs = await asyncio.wait_for(asyncio.gather(*(w.communicate() for w in workers)), 120)
    assert [w.returncode for w in workers] == [0] * WORKERS
    outcomes = [o for out, _ in outputs for o in json.loads(out.decode().splitlines()[-1])]
    entries = await fleet.read(lambda store: store.entries("app", 0.0))
    settled = sum(entry.cost for entry in entries)
    assert settled <= cap  # never passed, whatever the interleaving ...
    assert sorted(outcomes) == ["answered"] * 3 + ["app:max_cost"] * 5  # ... nor refused early
    assert len(entries) == 3


async def test_a_killed_workers_reservation_lapses(fleet: Fleet) -> None:
    (worker,) = await start_workers(fleet, 1, 250, Decimal(1), "hang")
    assert worker.stdout is not None
    assert await asyncio.wait_for(worker.stdout.readline(), 60) == b"holding\n"
    worker.send_signal(signal.SIGKILL)  # dies with its attempt's reservation in the store
    await worker.wait()
    worst = to_nano(cost_of(10, 250))
    check = SpendCheck("app", "app", 86400.0, int(worst * 1.5), None)  # room for one more

    def probe(hold_id: str, at: float) -> SpendEntry:
        return SpendEntry(hold_id, "app", "u", "s", "e", "m", at, worst, 0, "reserved", at + 600)

    now = time.time()
    refused = await fleet.read(lambda store: store.reserve(probe("p1", now), [check]))
    # 601 s on, past the 600 s a reservation holds when it is never settled:
    lapsed = await fleet.read(lambda store: store.reserve(probe("p2", now + 601.0), [check]))
    assert refused is not None and refused.spent.cost_nano >= worst  # the dead hold counts ...
    assert lapsed is None  # ... until it lapses: a crash never locks the budget for good
