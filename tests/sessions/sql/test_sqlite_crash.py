"""Crash safety: a process appending to SQLite is SIGKILLed 20 times; nothing tears.

``crash_worker.py`` appends events whose state deltas count themselves and
reports every SQL statement and commit; the test kills it after a random
number of those lines (so between the statements of a transaction, inside
commits, between appends), then checks the database against what the worker
said it did: every session loads, each event and its state delta were stored
together, every append that returned is there, and no event appears that
was rejected or never begun.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from steadyflow.sessions.sql import SqlSessionService

from .crash_worker import APP, USER

pytestmark = pytest.mark.slow  # SIGKILLs a subprocess 20 times

WORKER = Path(__file__).with_name("crash_worker.py")
KILLS = 20


@dataclass
class Log:
    """What the workers said they did, across all rounds."""

    begun: set[str] = field(default_factory=set)
    committed: set[str] = field(default_factory=set)
    rejected: set[str] = field(default_factory=set)
    complaints: list[str] = field(default_factory=list)
    last_begun: str = ""

    def in_flight(self) -> bool:
        """True while an append has begun and not returned."""
        return bool(self.last_begun) and self.last_begun not in self.committed

    def note(self, line: str) -> None:
        word, *rest = line.split()
        if word == "begin":
            self.begun.add(rest[1])
            self.last_begun = rest[1]
        elif word == "commit":
            self.committed.add(rest[0])
        elif word == "rejected":
            self.rejected.add(rest[0])
        elif word not in ("pid", "exit", "ready", "step"):
            self.complaints.append(line)


async def crash_round(
    proc: asyncio.subprocess.Process, seed: int, kill_after: int, log: Log
) -> tuple[int, bool]:
    """Start a worker, SIGKILL it after ``kill_after`` progress lines.

    Returns its exit status, and whether an append was in flight at the kill.
    """
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(f"{seed}\n".encode())
    await proc.stdin.drain()
    pid, progress, in_flight = None, 0, False
    while True:
        line = (await proc.stdout.readline()).decode().strip()
        assert line, "crash worker ended unexpectedly"
        log.note(line)
        if line.startswith("exit "):
            return int(line.split()[1]), in_flight
        if line.startswith("pid "):
            pid = int(line.split()[1])
        elif progress < kill_after:
            progress += 1
            if progress == kill_after and pid is not None:
                os.kill(pid, signal.SIGKILL)
                in_flight = log.in_flight()


async def check_database(db: Path, service: SqlSessionService, log: Log) -> None:
    """The invariants that must hold after any crash (``service`` has no cache)."""
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    listed = await service.list_sessions(app_name=APP, user_id=USER)
    sessions = [
        await service.get_session(app_name=APP, user_id=USER, session_id=s.id) for s in listed
    ]
    stored: set[str] = set()
    counts: dict[int, str] = {}
    for session in sessions:
        assert session is not None
        deltas = [e.actions.state_delta for e in session.events]
        assert [d["n"] for d in deltas] == list(range(1, len(deltas) + 1))
        assert session.state.get("n", 0) == len(deltas)
        stored |= {e.id for e in session.events}
        counts |= {d["user:count"]: d["app:last"] for d in deltas}
    assert sorted(counts) == list(range(1, len(stored) + 1))  # user state moved with each event
    if sessions:
        assert sessions[0] is not None
        assert sessions[0].state.get("user:count", 0) == len(stored)
        assert sessions[0].state.get("app:last") == counts.get(len(stored))
    assert log.committed <= stored, "an append that returned is missing"
    assert stored <= log.begun, "an event appeared that no worker appended"
    assert not stored & log.rejected, "a rejected append was stored"


async def test_sigkill_at_random_points_never_tears_or_loses_a_committed_event(
    tmp_path: Path,
) -> None:
    db = tmp_path / "sessions.db"
    rng = random.Random(20260518)
    log = Log()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(WORKER),
        str(db),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    checker = SqlSessionService(f"sqlite:///{db}", cache_max_events=0)
    try:
        assert proc.stdout is not None
        assert (await proc.stdout.readline()).decode().strip() == "ready"
        rounds = []
        for _ in range(KILLS):
            rounds.append(await crash_round(proc, rng.randrange(1 << 30), rng.randint(1, 30), log))
            await check_database(db, checker, log)
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        await proc.wait()
        await checker.close()

    assert [status for status, _ in rounds] == [signal.SIGKILL] * KILLS  # waitpid status
    assert log.complaints == []
    assert log.committed  # the workers got work done between kills
    assert sum(in_flight for _, in_flight in rounds) >= KILLS // 4  # many kills hit an append
