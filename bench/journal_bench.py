"""What durability costs per step: CPU time and durable writes, in memory and on SQLite.

Each turn runs on a fresh session with an instant fake model, in three
shapes: ``text`` (one step: the model answers), ``tool`` (two steps: one
tool call, then the answer) and ``parallel`` (two steps: two parallel tool
calls, then the answer). For each shape and store it reports the CPU time
per step (``time.process_time``, the median of rounds, each round the mean
over its turns) and, on SQLite, the durable writes per step: transactions
that wrote at least one row (each is one commit, one fsync of the WAL) and
the row-writing statements they held.

Run it on the working tree, and on the commit before durable invocations
to compare (the script only uses APIs both have)::

    .venv/bin/python bench/journal_bench.py
    git worktree add /tmp/pre-durable 8b9077eb246c
    PYTHONPATH=/tmp/pre-durable/src .venv/bin/python bench/journal_bench.py

SQLite files live on tmpfs (``/dev/shm`` when there is one), so the figures
are CPU and commit counts, not the disk's fsync latency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

import steadyflow
from steadyflow import Content, LlmAgent, Part, Runner
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse
from steadyflow.sessions import InMemorySessionService
from steadyflow.sessions.sql import SqlSessionService

APP, USER = "bench", "u1"
TMPFS = "/dev/shm" if Path("/dev/shm").is_dir() else None
SHAPES = {"text": (0, 1), "tool": (1, 2), "parallel": (2, 2)}  # tools per call, model calls


class Writes:
    """Counts committed transactions that wrote rows, and the row-writing statements."""

    def __init__(self) -> None:
        self.commits = self.statements = 0
        event.listen(Engine, "before_cursor_execute", self._execute)
        event.listen(Engine, "commit", self._commit)

    def close(self) -> None:
        event.remove(Engine, "before_cursor_execute", self._execute)
        event.remove(Engine, "commit", self._commit)

    def _execute(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().split(" ", 1)[0].upper() in ("INSERT", "UPDATE", "DELETE"):
            conn.info["wrote"] = True
            self.statements += 1

    def _commit(self, conn: Any) -> None:
        if conn.info.pop("wrote", False):
            self.commits += 1


class InstantLlm(BaseLlm):
    """Calls ``tools`` lookups (in parallel) until they are answered, then answers with text."""

    def __init__(self, tools: int) -> None:
        super().__init__("instant")
        self.tools = tools

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        answered = any(p.function_response for c in request.contents for p in c.parts)
        if self.tools and not answered:
            parts = [
                Part.from_function_call(name="lookup", args={"n": str(i)})
                for i in range(self.tools)
            ]
            yield LlmResponse(content=Content(role="model", parts=parts))
        else:
            yield LlmResponse.from_text("ok")


def lookup(n: str) -> dict[str, str]:
    """Look something up.

    Args:
        n: what.
    """
    return {"n": n, "status": "ok"}


async def one_round(store: str, shape: str, turns: int, writes: Writes) -> dict[str, float]:
    tools, calls = SHAPES[shape]
    agent = LlmAgent(name="a", model=InstantLlm(tools), tools=[lookup] if tools else [])
    with tempfile.TemporaryDirectory(dir=TMPFS) as tmp:
        if store == "memory":
            service: Any = InMemorySessionService()
        else:
            service = SqlSessionService(f"sqlite+aiosqlite:///{tmp}/s.db")
        runner = Runner(app_name=APP, agent=agent, session_service=service)
        sessions = [(await runner.create_session(user_id=USER)).id for _ in range(turns + 1)]
        await _turn(runner, sessions.pop())  # warm-up: imports, schema, caches
        commits, statements = writes.commits, writes.statements
        started = time.process_time()
        for session_id in sessions:
            await _turn(runner, session_id)
        cpu = time.process_time() - started
        await service.close()
    steps = turns * calls
    return {
        "cpu_us_per_step": cpu / steps * 1e6,
        "commits_per_step": (writes.commits - commits) / steps,
        "statements_per_step": (writes.statements - statements) / steps,
    }


async def _turn(runner: Runner, session_id: str) -> None:
    async for _ in runner.run_async(user_id=USER, session_id=session_id, new_message="hi"):
        pass


async def measure(turns: int, rounds: int) -> dict[str, dict[str, float]]:
    writes = Writes()
    results: dict[str, dict[str, float]] = {}
    try:
        for store in ("memory", "sqlite"):
            for shape in SHAPES:
                runs = [await one_round(store, shape, turns, writes) for _ in range(rounds)]
                results[f"{store}/{shape}"] = {
                    key: statistics.median(r[key] for r in runs) for key in runs[0]
                }
    finally:
        writes.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    results = asyncio.run(measure(args.turns, args.rounds))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"steadyflow from {Path(steadyflow.__file__).parent}")
    print(f"{'store/shape':<18} {'CPU us/step':>12} {'commits/step':>13} {'rows/step':>10}")
    for name, r in results.items():
        print(
            f"{name:<18} {r['cpu_us_per_step']:>12.0f} {r['commits_per_step']:>13.2f}"
            f" {r['statements_per_step']:>10.2f}"
        )


if __name__ == "__main__":
    main()
