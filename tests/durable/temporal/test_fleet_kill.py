"""Kill test: two worker processes; the one running a two-tool turn is SIGKILLed.

The other worker finishes the invocation.
Counted outside the workers: the emulator's request log (in this process)
and the tools' side-effect file. The guarantees are the durable issue's: a
model call in flight is made once more and counted; an interrupted tool
that is not idempotent never runs again and the model reads the
interrupted-outcome response; an idempotent one runs once more with the
same idempotency key; each event is stored exactly once in PostgreSQL.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from steadyflow import LlmAgent
from steadyflow.durable.temporal import TemporalRunner, TemporalSettings
from steadyflow.sessions import InvocationStatus, open_session_service
from steadyflow.testing import ScriptedLlm
from steadyflow.testing.emulator import EmulatedRequest, Fault, ProviderEmulator, ToolCall
from tests.support.temporal import TemporalServer

pytestmark = [pytest.mark.temporal, pytest.mark.postgres, pytest.mark.slow]

AGENT = Path(__file__).parent / "workers" / "fleet_agent.py"
HEARTBEAT = 2.0
WAIT = 120.0


def answer(request: EmulatedRequest) -> object:
    """Two parallel calls first; once their results are back, the final text."""
    if request.last is not None and request.last.results:
        return "charged and ticketed"
    return [ToolCall("charge", {"amount": 5}), ToolCall("ticket", {"subject": "refund"})]


class Fleet:
    def __init__(self, server: TemporalServer, url: str, queue: str, env: dict[str, str]) -> None:
        self.server, self.url, self.queue, self.env = server, url, queue, env
        self.workers: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str) -> None:
        argv = [sys.executable, "-m", "steadyflow", "worker", str(AGENT)]
        argv += ["--temporal-address", self.server.address, "--task-queue", self.queue]
        argv += ["--session-db", self.url, "--heartbeat-timeout", str(HEARTBEAT)]
        env = {**os.environ, **self.env, "FLEET_WORKER": name}
        self.workers[name] = subprocess.Popen(
            argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def kill(self, name: str) -> None:
        worker = self.workers[name]
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)

    def stop(self) -> None:
        for worker in self.workers.values():
            if worker.poll() is None:
                worker.kill()
                worker.wait(timeout=10)


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait (yielding to the emulator's server) until ``condition()`` holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not condition():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


@pytest.fixture
def effects(tmp_path: Path) -> Path:
    path = tmp_path / "effects.txt"
    path.touch()
    return path


@pytest.fixture
def fleet_factory(
    temporal_server: TemporalServer, postgres_url: str, effects: Path
) -> Iterator[Callable[[ProviderEmulator, dict[str, str]], Fleet]]:
    fleets: list[Fleet] = []

    def make(emulator: ProviderEmulator, extra: dict[str, str]) -> Fleet:
        env = {**emulator.env(), "FLEET_EFFECTS": str(effects), **extra}
        fleet = Fleet(temporal_server, postgres_url, f"fleet-{os.urandom(4).hex()}", env)
        fleets.append(fleet)
        return fleet

    yield make
    for fleet in fleets:
        fleet.stop()


@pytest.fixture
async def runner_of(
    temporal_server: TemporalServer, postgres_url: str
) -> AsyncIterator[Callable[[Fleet], TemporalRunner]]:
    from steadyflow.durable.temporal import connect

    client = await connect(temporal_server.address)
    made: list[TemporalRunner] = []

    def make(fleet: Fleet) -> TemporalRunner:
        settings = TemporalSettings(task_queue=fleet.queue, heartbeat_timeout=HEARTBEAT)
        agent = LlmAgent(name="fleet", model=ScriptedLlm([]))  # the workers run the real one
        runner = TemporalRunner(
            app_name="fleet",
            agent=agent,
            session_service=postgres_url,
            client=client,
            settings=settings,
        )
        made.append(runner)
        return runner

    yield make
    for runner in made:
        await runner.close()


async def stored_turn(url: str, session_id: str):
    service = open_session_service(url)
    try:
        session = await service.get_session(app_name="fleet", user_id="u", session_id=session_id)
        records = await service.list_invocations(
            app_name="fleet", user_id="u", session_id=session_id
        )
    finally:
        await service.close()
    assert session is not None
    return session, records


def lines(effects: Path) -> list[str]:
    return effects.read_text().splitlines()


async def test_a_worker_killed_during_a_model_attempt_is_finished_by_the_other(
    fleet_factory, runner_of, postgres_url: str, effects: Path
) -> None:
    async with ProviderEmulator(responder=answer, faults=[Fault.delay(600, on=1)]) as emulator:
        fleet = fleet_factory(emulator, {})
        runner = runner_of(fleet)
        session = await runner.create_session(user_id="u")
        fleet.start("A")
        handle = await runner.start(user_id="u", session_id=session.id, new_message="refund me")
        await until(lambda: emulator.attempts() == 1, "worker A's model attempt")
        fleet.start("B")
        fleet.kill("A")  # its model attempt (stalled by the emulator) is in flight
        result = await asyncio.wait_for(handle.result(), WAIT)
        assert emulator.attempts() == 3  # the lost attempt, its one re-run, the final call
        first, again, final = emulator.requests
        assert again.turns == first.turns and final.last is not None and final.last.results
    # worker A never reached the tools; B ran each once (the two side by side)
    ran = sorted(line.split()[:3] for line in lines(effects))
    assert ran == [["charge", w, "B"] for w in ("done", "start")] + [
        ["ticket", w, "B"] for w in ("done", "start")
    ]
    stored, records = await stored_turn(postgres_url, session.id)
    assert [e.id for e in stored.events] == [e.id for e in result.events]
    assert len({e.id for e in stored.events}) == len(stored.events) == 4
    assert [e.author for e in stored.events] == ["user", "fleet", "fleet", "fleet"]
    assert stored.events[-1].content is not None
    assert stored.events[-1].content.parts[0].text == "charged and ticketed"
    (record,) = records
    assert (record.status, record.llm_calls) == (InvocationStatus.COMPLETED, 3)


async def test_a_worker_killed_during_its_tools_is_finished_by_the_other(
    fleet_factory, runner_of, postgres_url: str, effects: Path
) -> None:
    async with ProviderEmulator(responder=answer) as emulator:
        fleet = fleet_factory(emulator, {"FLEET_HANG_TOOLS": "A"})
        runner = runner_of(fleet)
        session = await runner.create_session(user_id="u")
        fleet.start("A")
        handle = await runner.start(user_id="u", session_id=session.id, new_message="refund me")
        await until(lambda: len(lines(effects)) == 2, "worker A's two tools to start")
        fleet.start("B")
        fleet.kill("A")
        result = await asyncio.wait_for(handle.result(), WAIT)
        assert emulator.attempts() == 2  # the call and the final answer: no model call redone
        results = {r.name: r.response for r in emulator.requests[-1].last.results}
    started = {line.split()[0]: line.split()[3] for line in lines(effects)[:2]}
    assert sorted(lines(effects)[:2]) == sorted(
        [f"charge start A {started['charge']}", f"ticket start A {started['ticket']}"]
    )
    # charge (at most once) never runs again; ticket (idempotent) runs once more, same key
    assert lines(effects)[2:] == [
        f"ticket start B {started['ticket']}",
        f"ticket done B {started['ticket']}",
    ]
    assert "interrupted" in str(results["charge"]) and "unknown" in str(results["charge"])
    assert "refund" in str(results["ticket"])
    stored, records = await stored_turn(postgres_url, session.id)
    assert [e.id for e in stored.events] == [e.id for e in result.events]
    assert len({e.id for e in stored.events}) == len(stored.events) == 4
    (record,) = records
    assert (record.status, record.llm_calls) == (InvocationStatus.COMPLETED, 2)
