"""What hard limits cost per model attempt: CPU in memory, round trips to a spend store.

Every attempt under a usage or spend limit is estimated, reserved before it
is sent and settled after it (``steadyflow.usage``). Two measurements:

- **in memory**, one-step text turns on fresh sessions with an instant fake
  model, the turn's CPU time (``time.process_time``, the median of rounds,
  each round the mean over its turns) without limits and under:
  ``usage`` (``UsageLimits``, the request's ``max_output_tokens`` reserved),
  ``usage+spend`` (and a per-user ``SpendLimit`` on the in-memory spend
  store), ``ceiling`` (the same, no ``max_output_tokens``: the model's
  output ceiling reserved). The target is under 5% of the unlimited turn.
- **the reservation alone**: ``UsageMeter.admit`` then ``record`` (the
  hold made, the attempt counted, the hold settled) called directly, CPU
  per attempt, with the usage limits alone and with an in-memory spend
  limit as well: the part of the turn's extra cost that is the reservation
  (the rest is the estimate of the request and the usage kept in the
  invocation's record, which limits needed before reservations too).
- **per store**, reserving and settling one attempt through the spend
  limits' own gate (``SpendLimits``), N times: the statements and
  transactions per attempt on SQLite (tmpfs) and PostgreSQL, the Redis
  commands, and the wall time per attempt. On a networked database every
  statement, ``BEGIN`` and ``COMMIT`` is a round trip.

Run: ``.venv/bin/python -m bench.reservation_bench [--turns N] [--rounds R]
[--postgres URL] [--redis URL]``; ``--servers`` starts a PostgreSQL and a
Redis server for the run (the test suite's helpers in ``tests/support``).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from decimal import Decimal
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

from steadyflow import LlmAgent, RunConfig, Runner
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse
from steadyflow.sessions import InMemorySessionService
from steadyflow.sessions.sql import SqlSessionService
from steadyflow.types import Content, GenerateContentConfig, UsageMetadata
from steadyflow.usage import ModelPrice, SpendLimit, SpendStore, UsageLimits
from steadyflow.usage._estimate import Estimate
from steadyflow.usage._memory_spend import InMemorySpendStore
from steadyflow.usage._meter import UsageMeter
from steadyflow.usage.spend import SpendLimits, Who

USER = "u1"
TMPFS = "/dev/shm" if Path("/dev/shm").is_dir() else None
PRICES = {"bench-model": ModelPrice(input=Decimal(1), output=Decimal(4), max_output_tokens=4096)}
LOOSE = UsageLimits(max_total_tokens=10**12, max_cost=Decimal(10**6))
SPEND = SpendLimit(scope="user", max_total_tokens=10**15)
USAGE = UsageMetadata(input_tokens=12, output_tokens=3, total_tokens=15)
SCRIPT_CALLS = ("cmdstat_evalsha", "cmdstat_eval")  # what a client sends; the rest runs inside
SCENARIOS: dict[str, tuple[RunConfig, int | None]] = {
    "none": (RunConfig(prices=PRICES), 256),
    "usage": (RunConfig(usage_limits=LOOSE, prices=PRICES), 256),
    "usage+spend": (RunConfig(usage_limits=LOOSE, spend_limits=[SPEND], prices=PRICES), 256),
    "ceiling": (RunConfig(usage_limits=LOOSE, spend_limits=[SPEND], prices=PRICES), None),
}


class InstantLlm(BaseLlm):
    """Answers every call at once, reporting usage (so every turn is priced and counted)."""

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        yield LlmResponse(content=Content.from_text("ok", role="model"), usage_metadata=USAGE)


async def turn_cpu(scenario: str, turns: int) -> float:
    """Mean CPU microseconds of a one-step turn under ``scenario``."""
    run_config, max_output = SCENARIOS[scenario]
    config = GenerateContentConfig(max_output_tokens=max_output)
    agent = LlmAgent(name="a", model=InstantLlm("bench-model"), generate_content_config=config)
    runner = Runner(app_name="bench", agent=agent, session_service=InMemorySessionService())
    sessions = [(await runner.create_session(user_id=USER)).id for _ in range(turns + 1)]
    await _turn(runner, sessions.pop(), run_config)  # warm-up: imports, caches
    started = time.process_time()
    for session_id in sessions:
        await _turn(runner, session_id, run_config)
    return (time.process_time() - started) / turns * 1e6


async def _turn(runner: Runner, session_id: str, run_config: RunConfig) -> None:
    events = runner.run_async(
        user_id=USER, session_id=session_id, new_message="hi", run_config=run_config
    )
    async for _ in events:
        pass


async def reserve_settle_cpu(spend: bool, attempts: int) -> float:
    """CPU microseconds of one reservation and its settling, called directly."""
    gate = None
    if spend:
        gate = SpendLimits([SPEND], InMemorySpendStore(), Who("bench", USER, "s", "e"))
    meter = UsageMeter(LOOSE, PRICES, gate)
    estimate = Estimate(15, 256)
    started = time.process_time()
    for _ in range(attempts):
        hold = await meter.admit("attempt", "bench", "bench-model", estimate)
        meter.record("bench", "bench-model", USAGE, hold)
    return (time.process_time() - started) / attempts * 1e6


class Statements:
    """Counts the statements and the transactions sent to any SQL database."""

    def __init__(self) -> None:
        self.statements = self.transactions = 0
        event.listen(Engine, "before_cursor_execute", self._execute)
        event.listen(Engine, "begin", self._begin)

    def close(self) -> None:
        event.remove(Engine, "before_cursor_execute", self._execute)
        event.remove(Engine, "begin", self._begin)

    def _execute(self, *args: Any) -> None:
        self.statements += 1

    def _begin(self, *args: Any) -> None:
        self.transactions += 1


async def store_round(store: SpendStore, attempts: int, count: Any) -> dict[str, float]:
    """Reserve and settle ``attempts`` attempts on ``store``: counts and time per attempt."""
    gate = SpendLimits([SPEND], store, Who("bench", USER, "s", "e"))
    estimate = Estimate(15, 256)
    await gate.settle(await gate.reserve(estimate, "bench-model", "warm-up"), USAGE, None)
    before, started = await count(), time.perf_counter()
    for n in range(attempts):
        hold = await gate.reserve(estimate, "bench-model", f"attempt {n}")
        await gate.settle(hold, USAGE, None)
    wall = time.perf_counter() - started
    after = await count()
    return {key: (after[key] - before[key]) / attempts for key in after} | {
        "wall_us": wall / attempts * 1e6
    }


async def sql_round(url: str, attempts: int) -> dict[str, float]:
    service = SqlSessionService(url)
    await service.create_session(app_name="bench", user_id="setup")  # the schema
    counter = Statements()

    async def count() -> dict[str, float]:
        # Over a network each statement is a round trip, and so are BEGIN and COMMIT.
        trips = counter.statements + 2 * counter.transactions
        return {
            "statements": counter.statements,
            "transactions": counter.transactions,
            "round_trips": trips,
        }

    try:
        return await store_round(service.spend_store(), attempts, count)
    finally:
        counter.close()
        await service.close()


async def redis_round(url: str, attempts: int) -> dict[str, float]:
    import redis.asyncio as aioredis

    from steadyflow.usage.redis import RedisSpendStore

    client = aioredis.Redis.from_url(url)
    store = RedisSpendStore(client=client, prefix=f"bench{time.time_ns()}:")

    async def count() -> dict[str, float]:
        stats = await client.info("commandstats")
        scripts = sum(stats.get(name, {}).get("calls", 0) for name in SCRIPT_CALLS)
        calls = sum(v["calls"] for k, v in stats.items() if k != "cmdstat_info")
        return {"round_trips": scripts, "commands_run_by_scripts": calls - scripts}

    try:
        return await store_round(store, attempts, count)
    finally:
        await client.aclose()


async def measure(
    turns: int, rounds: int, postgres: str | None = None, redis: str | None = None
) -> dict[str, dict[str, float]]:
    """The figures the module docstring describes, by scenario and by store."""
    results: dict[str, dict[str, float]] = {}
    runs: dict[str, list[float]] = {name: [] for name in SCENARIOS}
    for _ in range(rounds):  # interleaved, so drift hits every scenario alike
        for name in SCENARIOS:
            runs[name].append(await turn_cpu(name, turns))
    base = statistics.median(runs["none"])
    for name, cpu in runs.items():
        median = statistics.median(cpu)
        results[f"memory/{name}"] = {"cpu_us": median, "overhead": (median - base) / base}
    for spend in (False, True):
        cpu = statistics.median([await reserve_settle_cpu(spend, turns) for _ in range(rounds)])
        name = "reservation/usage+spend" if spend else "reservation/usage"
        results[name] = {"cpu_us": cpu, "of_turn": cpu / base}
    with tempfile.TemporaryDirectory(dir=TMPFS) as tmp:
        results["sqlite"] = await sql_round(f"sqlite+aiosqlite:///{tmp}/s.db", turns)
    if postgres:
        results["postgres"] = await sql_round(postgres, turns)
    if redis:
        results["redis"] = await redis_round(redis, turns)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--postgres", help="a PostgreSQL URL (postgresql+asyncpg://...)")
    parser.add_argument("--redis", help="a Redis URL")
    parser.add_argument("--servers", action="store_true", help="start both for the run")
    args = parser.parse_args()
    servers: list[Any] = []
    if args.servers:
        from tests.support.postgres import start_postgres
        from tests.support.redis import start_redis

        servers = [start_postgres(), start_redis()]
        args.postgres = servers[0].create_database()
        args.redis = servers[1].url()
    try:
        results = asyncio.run(measure(args.turns, args.rounds, args.postgres, args.redis))
    finally:
        for server in servers:
            server.stop()
    for name, figures in results.items():
        shown = ", ".join(f"{key} {value:.3g}" for key, value in figures.items())
        print(f"{name:<22} {shown}")


if __name__ == "__main__":
    main()
