"""N processes on one Redis spend store: a burst never overspends the limit.

Each worker process reserves a call's estimate again and again, and settles
every admitted call with an actual use at most its estimate; they all start
together on a Redis barrier. Whatever the interleaving, the charged total
stays within the limit (the bound: calls in flight never use more than they
reserved), and the limit is used up rather than left idle.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import redis.asyncio as aioredis

from steadyflow.usage.redis import RedisSpendStore

WORKERS, TRIES, ESTIMATE, LIMIT = 4, 40, 100, 5000
ROOT = Path(__file__).resolve().parents[2]

WORKER = """
import asyncio, random, sys
import redis.asyncio as aioredis
from steadyflow.usage.redis import RedisSpendStore
from steadyflow.usage.spend import Charge, SpendCheck, SpendEntry, Who

async def main(url, prefix, worker, tries, estimate, limit):
    client = aioredis.Redis.from_url(url)
    await client.blpop([prefix + "go"], timeout=60)
    store = RedisSpendStore(url=url, prefix=prefix)
    check = SpendCheck("user", "user", 86400.0, None, limit)
    who = Who("app", "alice", f"s{worker}", f"e{worker}")
    admitted = 0
    for i in range(tries):
        hold = f"w{worker}-{i}"
        now = 1000.0 + i
        entry = SpendEntry(hold, "app", "alice", who.session, who.invocation, "m", now, 0,
                           estimate, "reserved", now + 600)
        refusal = await store.reserve(entry, [check])
        if refusal is None:
            admitted += 1
            await store.settle(hold, who, Charge(0, random.randint(estimate // 2, estimate)), now)
    print(admitted)
    await store.aclose()
    await client.aclose()

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), *map(int, sys.argv[4:])))
"""


async def test_workers_on_one_redis_never_overspend(redis_server) -> None:
    url, prefix = redis_server.url(), f"fleet{os.urandom(4).hex()}:"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    args = [str(TRIES), str(ESTIMATE), str(LIMIT)]
    workers = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            WORKER,
            url,
            prefix,
            str(n),
            *args,
            stdout=asyncio.subprocess.PIPE,
            env=env,
        )
        for n in range(WORKERS)
    ]
    client = aioredis.Redis.from_url(url)
    await client.rpush(prefix + "go", *["go"] * WORKERS)
    outputs = await asyncio.wait_for(asyncio.gather(*(w.communicate() for w in workers)), 120)
    await client.aclose()
    assert [w.returncode for w in workers] == [0] * WORKERS
    admitted = sum(int(out.decode()) for out, _ in outputs)
    store = RedisSpendStore(url=url, prefix=prefix)
    entries = await store.entries("app", 0.0)
    await store.aclose()
    charged = sum(e.tokens for e in entries)
    assert len(entries) == admitted
    assert charged <= LIMIT  # never overspent, whatever the interleaving
    assert admitted >= LIMIT // ESTIMATE  # and the limit was used, not left idle
    assert admitted < WORKERS * TRIES  # the burst was refused past the limit
