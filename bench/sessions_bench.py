"""Session store speed on SQLite and PostgreSQL: appends, long-session loads, turns.

Measures, for each SQL backend:

- ``append seq``: events/s appending one after another to one session (each
  append is a durable commit: on SQLite an fsync of the WAL, on PostgreSQL
  a WAL flush at commit);
- ``append x8``: events/s with 8 sessions appended to concurrently;
- ``load cold``: ms to load a 5,000-event session with an empty cache (one
  events query, every event parsed);
- ``load warm``: ms to load it again, unchanged (the revision-checked cache:
  one session-row query, no events read);
- ``turn@0`` / ``turn@3200``: ms for one ``Runner`` turn (user event, model
  answer from an instant fake model, trace event) on a session holding 0 or
  3,200 prior events, with the cache on and (``nocache``) off. Turns on the
  two sessions alternate, so drift hits both alike; the median and the best
  turn are reported (the best is the better estimate on a busy machine).

The long sessions are filled by inserting rows directly (exactly the rows
``append_event`` writes); appending 5,000 events one durable commit at a time
would only measure the disk. PostgreSQL is a throwaway server started with
fsync on (``tests/support/postgres.py``) unless ``--postgres-url`` is given.

Run: ``.venv/bin/python bench/sessions_bench.py [--postgres-url URL] [--appends N] [--turns N]``
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from steadyflow import LlmAgent, Runner
from steadyflow.events import Event
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse
from steadyflow.sessions.sql import SqlSessionService
from steadyflow.sessions.sql import _schema as tables
from steadyflow.sessions.sql._codec import encode_event
from steadyflow.sessions.sql._key import SessionKey
from steadyflow.sessions.sql._queries import session_filter
from steadyflow.types import Content

APP, USER = "bench", "u1"


class InstantLlm(BaseLlm):
    """Answers every call at once."""

    def __init__(self) -> None:
        super().__init__("instant")

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        yield LlmResponse.from_text("ok")


def message(i: int) -> Event:
    role, author = ("user", "user") if i % 2 == 0 else ("model", "assistant")
    text = f"message {i}: " + "lorem ipsum dolor sit amet " * 4
    return Event(
        author=author, invocation_id=f"inv-{i // 2}", content=Content.from_text(text, role)
    )


async def fill(service: SqlSessionService, session_id: str, count: int) -> None:
    """Create ``session_id`` holding ``count`` events, inserted in one transaction."""
    await service.create_session(app_name=APP, user_id=USER, session_id=session_id)
    key = SessionKey(APP, USER, session_id)
    rows = []
    for seq in range(1, count + 1):
        event = message(seq - 1)
        rows.append(tables.event_row(key, seq, event, encode_event(event)))
    sessions = tables.sessions
    async with service.engine.begin() as conn:
        for start in range(0, len(rows), 1000):
            await conn.execute(tables.events.insert(), rows[start : start + 1000])
        where = session_filter(sessions, key)
        await conn.execute(sessions.update().where(where).values(revision=count))


async def median_ms(fn: Callable[[], Awaitable[Any]], reps: int) -> float:
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        await fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def append_rate(url: str, appends: int, sessions: int) -> float:
    service = SqlSessionService(url)
    copies = [await service.create_session(app_name=APP, user_id=USER) for _ in range(sessions)]

    async def writer(copy: Any, n: int) -> None:
        for i in range(n):
            await service.append_event(copy, message(i))

    start = time.perf_counter()
    await asyncio.gather(*(writer(c, appends // sessions) for c in copies))
    elapsed = time.perf_counter() - start
    await service.close()
    return appends / elapsed


async def load_times(url: str, events: int) -> tuple[float, float]:
    writer = SqlSessionService(url)
    await fill(writer, "long", events)
    await writer.close()

    async def cold() -> None:
        fresh = SqlSessionService(url)
        await fresh.get_session(app_name=APP, user_id=USER, session_id="absent")  # connect
        start = time.perf_counter()
        await fresh.get_session(app_name=APP, user_id=USER, session_id="long")
        cold_times.append((time.perf_counter() - start) * 1000)
        await fresh.close()

    cold_times: list[float] = []
    for _ in range(5):
        await cold()
    warm = SqlSessionService(url)
    await warm.get_session(app_name=APP, user_id=USER, session_id="long")
    warm_ms = await median_ms(
        lambda: warm.get_session(app_name=APP, user_id=USER, session_id="long"), 20
    )
    await warm.close()
    return statistics.median(cold_times), warm_ms


async def turn_times(url: str, cache: bool, reps: int) -> dict[str, float]:
    """Turns at 0 and 3,200 prior events, interleaved so machine noise hits both alike."""
    service = SqlSessionService(url, cache_max_events=100_000 if cache else 0)
    runner = Runner(
        app_name=APP,
        agent=LlmAgent(name="assistant", model=InstantLlm()),
        session_service=service,
    )
    times: dict[int, list[float]] = {0: [], 3200: []}
    for prior in times:
        await fill(service, f"turns-{prior}-{cache}", prior)

    async def turn(prior: int) -> None:
        session_id = f"turns-{prior}-{cache}"
        async for _ in runner.run_async(user_id=USER, session_id=session_id, new_message="hi"):
            pass

    for prior in times:
        await turn(prior)  # warm up: connections, the cache
    for _ in range(reps):
        for prior, bucket in times.items():
            start = time.perf_counter()
            await turn(prior)
            bucket.append((time.perf_counter() - start) * 1000)
    await service.close()
    suffix = "" if cache else " nocache"
    row = {}
    for prior, bucket in times.items():
        row[f"turn@{prior}{suffix} median (ms)"] = statistics.median(bucket)
        row[f"turn@{prior}{suffix} best (ms)"] = min(bucket)
    row[f"ratio{suffix} median"] = statistics.median(times[3200]) / statistics.median(times[0])
    row[f"ratio{suffix} best"] = min(times[3200]) / min(times[0])
    return row


async def bench_backend(name: str, url: str, args: argparse.Namespace) -> dict[str, float]:
    print(f"{name}: appending...", file=sys.stderr)
    row = {
        "append seq (ev/s)": await append_rate(url, args.appends, 1),
        "append x8 (ev/s)": await append_rate(url, args.appends, 8),
    }
    print(f"{name}: loading {args.events} events...", file=sys.stderr)
    row["load cold (ms)"], row["load warm (ms)"] = await load_times(url, args.events)
    print(f"{name}: turns...", file=sys.stderr)
    for cache in (True, False):
        row |= await turn_times(url, cache, args.turns)
    return row


def start_postgres() -> Any:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    support = importlib.import_module("tests.support.postgres")
    return support.start_postgres(durable=True)


async def main(args: argparse.Namespace) -> None:
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{tmp}/sessions.db"
        results["sqlite"] = await bench_backend("sqlite", url, args)
    server = None
    pg_url = args.postgres_url
    if pg_url is None:
        server = start_postgres()
        pg_url = server.create_database()
    try:
        results["postgresql"] = await bench_backend("postgresql", pg_url, args)
    finally:
        if server is not None:
            server.stop()
    print_table(results)


def print_table(results: dict[str, dict[str, float]]) -> None:
    names = list(results)
    print("| metric | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for metric in results[names[0]]:
        cells = [f"{results[n][metric]:,.2f}" for n in names]
        print(f"| {metric} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres-url", help="an existing database (else a throwaway server)")
    parser.add_argument("--appends", type=int, default=400, help="appends per throughput run")
    parser.add_argument("--events", type=int, default=5000, help="events in the long session")
    parser.add_argument("--turns", type=int, default=20, help="turns per session size")
    asyncio.run(main(parser.parse_args()))
