"""The Temporal mode beside in-process: framework time per step, Temporal's own cost, throughput.

    .venv/bin/python -m bench.temporal_bench [--turns 20] [--fleet 200] [--workers 2]

Starts a Temporal dev server (the test suite's helper) and measures, with the
same instant model and the same two-step turn (a tool call, then text) as
the peer bench:

- **in-process**: ``Runner`` over the in-memory store, CPU time per step;
- **on Temporal**: ``TemporalRunner`` with a worker in this process (same
  store), CPU time per step of this process (client, worker, SDK core);
- **Temporal's own cost**: a workflow with the same activities as that turn
  (begin, model, append, tool, append, model, append, finish) whose
  activities do nothing: its CPU time per turn is what Temporal costs before
  steadyflow does anything, and its wall time per activity is Temporal's
  round trip. steadyflow's framework time per step on Temporal is the first
  minus the second, per step;
- **fleet**: ``--fleet`` invocations started at once, run by ``--workers``
  workers (in this process, one store): wall time and invocations per second.

The dev server runs in its own process; its CPU is not in these figures.
Results go to ``bench/results/temporal.json``; nothing asserts timings.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from temporalio.client import Client
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the dev-server helper lives with the tests

from tests.support.temporal import start_temporal  # noqa: E402

from bench.sides.sf_side import InstantLlm  # noqa: E402
from bench.temporal_noop import NOOP_ACTIVITIES, NoopTurn, noop  # noqa: E402
from steadyflow import FunctionTool, LlmAgent, Runner  # noqa: E402
from steadyflow.durable.temporal import (  # noqa: E402
    TemporalRunner,
    TemporalSettings,
    connect,
    create_worker,
)
from steadyflow.sessions import InMemorySessionService  # noqa: E402

STEPS = 2  # model calls per turn
OUT = ROOT / "bench" / "results" / "temporal.json"


def weather(city: str) -> dict[str, str]:
    """The forecast (the peer bench's tool)."""
    return {"city": city, "forecast": "sunny"}


def agent() -> LlmAgent:
    return LlmAgent(name="bench", model=InstantLlm(), tools=[FunctionTool(weather)])


async def timed(turns: int, one: Callable[[int], Any]) -> dict[str, float]:
    """CPU and wall seconds per turn over ``turns`` sequential turns (after one warm-up)."""
    await one(-1)
    cpu, wall = time.process_time(), time.perf_counter()
    for n in range(turns):
        await one(n)
    return {
        "cpu_per_turn": (time.process_time() - cpu) / turns,
        "wall_per_turn": (time.perf_counter() - wall) / turns,
    }


async def in_process(turns: int) -> dict[str, float]:
    runner = Runner(app_name="bench", agent=agent(), session_service=InMemorySessionService())

    async def one(n: int) -> None:
        session = await runner.create_session(user_id="u")
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="hi"):
            pass

    return await timed(turns, one)


async def on_temporal(client: Client, turns: int) -> dict[str, float]:
    service, settings = InMemorySessionService(), TemporalSettings(task_queue="bench-turns")
    root = agent()
    runner = TemporalRunner(
        app_name="bench", agent=root, session_service=service, client=client, settings=settings
    )

    async def one(n: int) -> None:
        session = await runner.create_session(user_id="u")
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="hi"):
            pass

    worker = create_worker(
        client, app_name="bench", agent=root, session_service=service, settings=settings
    )
    async with worker:
        return await timed(turns, one)


async def noop_turns(client: Client, turns: int) -> dict[str, float]:
    restrictions = SandboxRestrictions.default.with_passthrough_modules("steadyflow", "bench")
    worker = Worker(
        client,
        task_queue="bench-noop",
        workflows=[NoopTurn],
        activities=[noop],
        workflow_runner=SandboxedWorkflowRunner(restrictions=restrictions),
    )

    async def one(n: int) -> None:
        await client.execute_workflow(
            NoopTurn.run, id=f"noop-{n}-{time.time_ns()}", task_queue="bench-noop"
        )

    async with worker:
        result = await timed(turns, one)
    result["wall_per_activity"] = result["wall_per_turn"] / NOOP_ACTIVITIES
    return result


async def fleet(client: Client, address: str, invocations: int, workers: int) -> dict[str, float]:
    service, settings = InMemorySessionService(), TemporalSettings(task_queue="bench-fleet")
    root = agent()
    runner = TemporalRunner(
        app_name="bench", agent=root, session_service=service, client=client, settings=settings
    )
    sessions = [await runner.create_session(user_id="u") for _ in range(invocations)]
    built = []
    for _ in range(workers):  # a worker per client: one client may not run two on a queue
        own = await connect(address)
        built.append(
            create_worker(
                own, app_name="bench", agent=root, session_service=service, settings=settings
            )
        )
    for worker in built:
        await worker.__aenter__()
    try:
        wall = time.perf_counter()
        handles = [
            await runner.start(user_id="u", session_id=s.id, new_message="hi") for s in sessions
        ]
        results = await asyncio.gather(*(h.result() for h in handles))
        seconds = time.perf_counter() - wall
    finally:
        for worker in built:
            await worker.__aexit__(None, None, None)
    stored = [len(r.events) for r in results]
    return {
        "invocations": invocations,
        "workers": workers,
        "completed": sum(1 for n in stored if n == 4),
        "wall_seconds": seconds,
        "per_second": invocations / seconds,
    }


async def measure(turns: int, invocations: int, workers: int) -> dict[str, Any]:
    server = start_temporal()
    try:
        client = await connect(server.address)
        local = await in_process(max(turns * 10, 100))
        temporal = statistics_of([await on_temporal(client, turns) for _ in range(3)])
        noop_result = statistics_of([await noop_turns(client, turns) for _ in range(3)])
        fleet_result = await fleet(client, server.address, invocations, workers)
    finally:
        server.stop()
    framework = (temporal["cpu_per_turn"] - noop_result["cpu_per_turn"]) / STEPS
    return {
        "in_process_cpu_per_step_us": local["cpu_per_turn"] / STEPS * 1e6,
        "temporal_cpu_per_step_us": temporal["cpu_per_turn"] / STEPS * 1e6,
        "temporal_own_cpu_per_turn_us": noop_result["cpu_per_turn"] * 1e6,
        "framework_cpu_per_step_on_temporal_us": framework * 1e6,
        "temporal_round_trip_ms": noop_result["wall_per_activity"] * 1e3,
        "temporal_wall_per_turn_ms": temporal["wall_per_turn"] * 1e3,
        "fleet": fleet_result,
    }


def statistics_of(runs: list[dict[str, float]]) -> dict[str, float]:
    """The fastest round per figure (the peer bench's rule: slow phases only add time)."""
    return {key: min(run[key] for run in runs) for key in runs[0]}


def table(result: dict[str, Any]) -> str:
    fleet_result = result["fleet"]
    rows = [
        ("steadyflow CPU per step, in-process", f"{result['in_process_cpu_per_step_us']:.0f} µs"),
        ("steadyflow CPU per step, on Temporal", f"{result['temporal_cpu_per_step_us']:.0f} µs"),
        (
            "  of which Temporal's own (no-op turn, per step)",
            f"{result['temporal_own_cpu_per_turn_us'] / STEPS:.0f} µs",
        ),
        (
            "  framework time per step on Temporal",
            f"{result['framework_cpu_per_step_on_temporal_us']:.0f} µs",
        ),
        ("Temporal round trip per activity (wall)", f"{result['temporal_round_trip_ms']:.1f} ms"),
        ("two-step turn on Temporal (wall)", f"{result['temporal_wall_per_turn_ms']:.0f} ms"),
        (
            f"{fleet_result['invocations']} concurrent invocations, "
            f"{fleet_result['workers']} workers",
            f"{fleet_result['completed']} completed in {fleet_result['wall_seconds']:.1f} s "
            f"({fleet_result['per_second']:.0f}/s)",
        ),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20, help="sequential turns per round")
    parser.add_argument("--fleet", type=int, default=200, help="concurrent invocations")
    parser.add_argument("--workers", type=int, default=2, help="workers for the fleet run")
    args = parser.parse_args()
    result = asyncio.run(measure(args.turns, args.fleet, args.workers))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(table(result))


if __name__ == "__main__":
    main()
