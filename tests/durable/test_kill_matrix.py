"""The kill matrix: a real worker process SIGKILLed at each point of a turn, then resumed.

The worker (``crash_worker.py``, run with this interpreter) runs a two-tool
parallel turn against the provider emulator served on loopback from this
process, on SQLite and on PostgreSQL. It stops at the kill point (it says
``READY`` there and blocks, or the emulator holds its model request) and
is killed with SIGKILL; ``steadyflow resume`` then finishes the turn in a
new process. Everything is counted outside the processes: the emulator's
request log, and a file each tool run appends a line to.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from steadyflow.durable import INTERRUPTED_RESPONSE
from steadyflow.sessions import InvocationStatus
from steadyflow.sessions.sql import SqlSessionService
from steadyflow.testing.emulator import EmulatedRequest, Fault, ProviderEmulator, Reply, ToolCall

pytestmark = pytest.mark.slow

WORKER = str(Path(__file__).with_name("crash_worker.py"))
ROOT = str(Path(__file__).parents[2])
SAFETY = 120.0  # seconds; only a hung worker ever waits this long


class TwoToolTurn:
    """The emulated model: two parallel calls, then a text answer; can hold request 1 open."""

    def __init__(self, hold_first: bool = False) -> None:
        self.hold_first = hold_first
        self.arrived, self.release = threading.Event(), threading.Event()

    def __call__(self, request: EmulatedRequest) -> Reply:
        if self.hold_first and request.number == 1:
            self.arrived.set()
            self.release.wait(SAFETY)  # the worker is killed meanwhile
        if any(turn.results for turn in request.turns):
            return Reply.streamed("All ", "done.")
        return Reply.calls(
            ToolCall("charge", {"order_id": "7"}), ToolCall("lookup", {"order_id": "7"})
        )


@dataclass
class Point:
    """A kill point and what the turn had committed there."""

    requests_before: int  # provider requests the killed worker had made
    committed_calls: int  # model calls whose answer was stored before the kill
    interrupted: str | None = None  # the non-idempotent tool cut short
    rerun: str | None = None  # the idempotent tool cut short (runs once more)
    phantom: int = 0  # the resume counts a call in flight that never left


POINTS = {
    "after_user_event": Point(0, 0, phantom=1),
    "model_call": Point(1, 0),
    "model_stream": Point(2, 1),
    "retry_wait": Point(1, 0),
    "call_stored": Point(1, 1),
    "one_done": Point(1, 1, interrupted="charge"),
    "one_done_idempotent": Point(1, 1, rerun="lookup"),
    "both_done": Point(1, 1),
}


class Worker:
    """Starts worker processes for one session in one store, and reads what they left."""

    def __init__(self, url: str, tmp: Path, emulator: ProviderEmulator) -> None:
        self.url, self.tmp, self.session_id = url, tmp, f"s-{uuid.uuid4().hex[:8]}"
        self.side = tmp / "side-effects.jsonl"
        self.processes: list[subprocess.Popen[str]] = []
        self.env = {
            **os.environ,
            **emulator.env(),
            "PYTHONPATH": ROOT,
            "CRASH_DB": url,
            "CRASH_SESSION": self.session_id,
            "CRASH_SIDE": str(self.side),
        }

    def start(self, mode: str, **env: str) -> subprocess.Popen[str]:
        """A worker; its stderr goes to a file in the test's directory."""
        with (self.tmp / f"{mode}-{uuid.uuid4().hex[:6]}.err").open("w") as errors:
            process = subprocess.Popen(
                [sys.executable, WORKER, mode],
                env={**self.env, **env},
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
                cwd=self.tmp,
            )
        self.processes.append(process)
        return process

    def close(self) -> None:
        """Kill what still runs and close the pipes."""
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.wait(SAFETY)
            for pipe in (process.stdin, process.stdout):
                if pipe is not None:
                    pipe.close()

    def resume_with_cli(self) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "steadyflow", "resume", WORKER, self.session_id]
        argv += ["--session-db", self.url]
        return subprocess.run(
            argv, env=self.env, capture_output=True, text=True, timeout=SAFETY, cwd=self.tmp
        )

    def tool_runs(self) -> list[dict[str, str]]:
        if not self.side.exists():
            return []
        return [json.loads(line) for line in self.side.read_text().splitlines()]

    def stored(self) -> tuple[Any, list[Any]]:
        async def read() -> tuple[Any, list[Any]]:
            service = SqlSessionService(self.url)
            try:
                key = {"app_name": "shop", "user_id": "u", "session_id": self.session_id}
                return await service.get_session(**key), await service.list_invocations(**key)
            finally:
                await service.close()

        return asyncio.run(read())


def read_line(process: subprocess.Popen[str]) -> str:
    """The worker's next stdout line ('' when it exited), waiting at most SAFETY seconds."""
    stdout = process.stdout
    assert stdout is not None
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.append(stdout.readline()))
    reader.start()
    reader.join(SAFETY)
    assert lines, "the worker hung"
    return lines[0].strip()


def kill(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGKILL)
    assert process.wait(SAFETY) == -signal.SIGKILL


def conversation(session: Any) -> list[tuple[Any, ...]]:
    """The stored events without ids and times: who said what, called what, got what."""
    return [
        (
            e.author,
            e.text or "",
            [(c.name, c.args) for c in e.get_function_calls()],
            [(r.name, r.response) for r in e.get_function_responses()],
        )
        for e in session.events
    ]


def seen(request: EmulatedRequest) -> list[tuple[Any, ...]]:
    """What the model was sent, without call ids."""
    return [
        (
            t.role,
            t.text,
            [(c.name, c.args) for c in t.calls],
            [(r.name, r.response) for r in t.results],
        )
        for t in request.turns
    ]


def interrupted(items: list[Any], tool: str | None) -> list[Any]:
    """``items`` (conversation or requests) with ``tool``'s result the interrupted response."""
    if tool is None:
        return items
    text = json.dumps(items).replace(
        json.dumps([tool, {"charged": "7"}]), json.dumps([tool, INTERRUPTED_RESPONSE])
    )
    return json.loads(text)


def uninterrupted(url: str, tmp: Path) -> tuple[list[Any], list[Any]]:
    """The conversation and the requests of the turn run start to end without a crash."""
    with ProviderEmulator(responder=TwoToolTurn()).running_in_thread() as emulator:
        worker = Worker(url, tmp, emulator)
        try:
            process = worker.start("run")
            assert read_line(process) == "DONE"
            assert process.wait(SAFETY) == 0
        finally:
            worker.close()
        requests = [seen(r) for r in emulator.requests]
    session, _ = worker.stored()
    return json.loads(json.dumps(conversation(session))), json.loads(json.dumps(requests))


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Any], list[Any]]:
    tmp = tmp_path_factory.mktemp("reference")
    return uninterrupted(f"sqlite+aiosqlite:///{tmp / 'sessions.db'}", tmp)


@pytest.mark.parametrize("point", list(POINTS))
def test_a_turn_killed_at_each_point_resumes_without_doing_anything_twice(
    point, sql_url, tmp_path, reference
):
    expected = POINTS[point]
    ref_conversation, ref_requests = reference
    turn = TwoToolTurn(hold_first=point == "model_call")
    faults = [Fault.http(503, on=1)] if point == "retry_wait" else []
    emulator = ProviderEmulator(responder=turn, faults=faults)
    with emulator.running_in_thread():
        worker = Worker(sql_url, tmp_path, emulator)
        env = {"CRASH_POINT": point, "CRASH_STREAM": "1" if point == "model_stream" else ""}
        process = worker.start("run", **env)
        try:
            if point == "model_call":
                assert turn.arrived.wait(SAFETY), "the model request never arrived"
            else:
                assert read_line(process) == "READY"
            kill(process)
        finally:
            turn.release.set()
            worker.close()
        before = len(emulator.requests)
        runs_before = worker.tool_runs()
        resumed = worker.resume_with_cli()
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        after = [seen(r) for r in emulator.requests[before:]]
        total_requests = len(emulator.requests)

    assert before == expected.requests_before
    # After the resume: only the call in flight (if one was) and the rest of the turn.
    assert json.loads(json.dumps(after)) == interrupted(
        ref_requests[expected.committed_calls :], expected.interrupted
    )
    # Tools: a journaled result never runs again; a cut-short idempotent one runs once more.
    runs = worker.tool_runs()
    counts = {tool: [r["tool"] for r in runs].count(tool) for tool in ("charge", "lookup")}
    assert counts == {"charge": 1, "lookup": 2 if expected.rerun else 1}
    for tool in ("charge", "lookup"):
        assert len({r["key"] for r in runs if r["tool"] == tool}) == 1  # one key, across the crash
    if expected.interrupted or expected.rerun:
        assert len(runs_before) == 2  # both had started before the kill
    session, (record,) = worker.stored()
    assert (record.status, record.resume_count) == (InvocationStatus.COMPLETED, 1)
    assert record.llm_calls == total_requests + expected.phantom  # counted across the crash
    stored = json.loads(json.dumps(conversation(session)))
    assert [e[0] for e in stored].count("user") == 1
    assert stored == interrupted(ref_conversation, expected.interrupted)


def test_of_two_resumer_processes_started_together_exactly_one_proceeds(sql_url, tmp_path):
    with ProviderEmulator(responder=TwoToolTurn()).running_in_thread() as emulator:
        worker = Worker(sql_url, tmp_path, emulator)
        try:
            crashed = worker.start("run", CRASH_POINT="call_stored")
            assert read_line(crashed) == "READY"
            kill(crashed)
            before = len(emulator.requests)
            resumers = [worker.start("resume"), worker.start("resume")]
            assert [read_line(p) for p in resumers] == ["READY", "READY"]  # connected, waiting
            for process in resumers:  # go, both at once
                assert process.stdin is not None
                process.stdin.write("go\n")
                process.stdin.flush()
            outcomes = sorted(read_line(p) for p in resumers)
            codes = sorted(p.wait(SAFETY) for p in resumers)
        finally:
            worker.close()
        after = len(emulator.requests) - before

    loser, winner = outcomes
    assert winner == "RESUMED 2"  # the tools' response event and the answer
    assert loser.startswith(("ERROR StaleInvocationError", "ERROR NothingToResumeError")), loser
    assert codes == [0, 3]
    assert after == 1  # one model call: the winner's
    assert sorted(r["tool"] for r in worker.tool_runs()) == ["charge", "lookup"]
    session, (record,) = worker.stored()
    assert len({e.id for e in session.events}) == len(session.events) == 4
    assert (record.status, record.resume_count) == (InvocationStatus.COMPLETED, 1)
