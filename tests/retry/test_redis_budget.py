"""RedisRetryBudget: the same arithmetic as the in-process budgets, shared through Redis."""

import asyncio
import random
import uuid
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from tests.support.redis import RedisServer

from steadyflow.retry import AdaptiveThrottle, RedisRetryBudget, TokenBucketRetryBudget
from steadyflow.testing import FakeClock

pytestmark = pytest.mark.redis

KEY = "openai:gpt-4o"


@pytest.fixture
def prefix() -> str:
    return f"test:{uuid.uuid4().hex}:"


@pytest.fixture
async def raw(redis_server: RedisServer) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_server.url())
    yield client
    await client.aclose()


@pytest.fixture
async def shared() -> AsyncIterator[list[RedisRetryBudget]]:
    """Budgets made by a test, closed after it."""
    made: list[RedisRetryBudget] = []
    yield made
    for budget in made:
        await budget.aclose()


def on_redis(shared, server: RedisServer, prefix: str, local, **kwargs) -> RedisRetryBudget:
    budget = RedisRetryBudget(local, url=server.url(), prefix=prefix, **kwargs)
    shared.append(budget)
    return budget


async def test_a_failure_costs_one_token_in_redis(shared, redis_server, prefix, raw) -> None:
    budget = on_redis(shared, redis_server, prefix, TokenBucketRetryBudget(max_tokens=10))
    for _ in range(3):
        await budget.record(KEY, failed=True)
    assert await raw.get(f"{prefix}bucket:{KEY}") == b"7000"


async def test_successes_add_exact_thousandths_in_redis(shared, redis_server, prefix, raw) -> None:
    local = TokenBucketRetryBudget(max_tokens=10, token_ratio=0.1)
    budget = on_redis(shared, redis_server, prefix, local)
    for failed in [True] * 6 + [False] * 7:
        await budget.record(KEY, failed=failed)
    assert await raw.get(f"{prefix}bucket:{KEY}") == b"4700"
    assert local.tokens(KEY) == 10.0  # the in-process twin was not used


async def test_two_processes_draw_on_one_bucket(shared, redis_server, prefix) -> None:
    worker_a = on_redis(shared, redis_server, prefix, TokenBucketRetryBudget(max_tokens=10))
    worker_b = on_redis(shared, redis_server, prefix, TokenBucketRetryBudget(max_tokens=10))
    for worker in (worker_a, worker_b, worker_a, worker_b, worker_a):
        assert await worker.allow(KEY, retry=True)
        await worker.record(KEY, failed=True)
    assert not await worker_b.allow(KEY, retry=True)
    assert await worker_b.allow("anthropic:claude", retry=True)


async def test_first_attempts_skip_redis(shared, prefix) -> None:
    budget = RedisRetryBudget(
        TokenBucketRetryBudget(), url="redis://127.0.0.1:1/0", prefix=prefix, timeout=0.05
    )
    shared.append(budget)
    assert await budget.allow(KEY, retry=False)


@pytest.mark.parametrize("seed", range(3))
async def test_token_bucket_twin_gives_the_local_verdicts(shared, redis_server, prefix, seed):
    rng = random.Random(seed)
    local = TokenBucketRetryBudget(max_tokens=6, token_ratio=0.3)
    budget = on_redis(shared, redis_server, prefix, TokenBucketRetryBudget(6, 0.3))
    verdicts = []
    for _ in range(150):
        failed = rng.random() < 0.6
        await local.record(KEY, failed=failed)
        await budget.record(KEY, failed=failed)
        verdict = await budget.allow(KEY, retry=True)
        assert verdict == await local.allow(KEY, retry=True)
        verdicts.append(verdict)
    assert True in verdicts and False in verdicts


@pytest.mark.parametrize("seed", range(3))
async def test_adaptive_throttle_twin_gives_the_local_verdicts(shared, redis_server, prefix, seed):
    rng, clock = random.Random(seed), FakeClock(1000.0)
    draws: list[float] = []
    local = AdaptiveThrottle(window=60.0, clock=clock, random_source=lambda: draws[-1])
    twin = AdaptiveThrottle(window=60.0, random_source=lambda: draws[-1])
    budget = on_redis(shared, redis_server, prefix, twin, clock=clock)
    verdicts = []
    for _ in range(150):
        clock.advance(rng.choice([0.0, 0.5, 3.0, 17.0]))
        failed = rng.random() < 0.7
        await local.record(KEY, failed=failed)
        await budget.record(KEY, failed=failed)
        draws.append(rng.random())
        verdict = await budget.allow(KEY, retry=True)
        assert verdict == await local.allow(KEY, retry=True)
        verdicts.append(verdict)
    assert True in verdicts and False in verdicts


async def test_adaptive_throttle_sheds_on_redis_counts(shared, redis_server, prefix, raw) -> None:
    clock = FakeClock(500.0)
    throttle = AdaptiveThrottle(random_source=lambda: 0.9)
    budget = on_redis(shared, redis_server, prefix, throttle, clock=clock)
    for _ in range(10):
        await budget.record(KEY, failed=True)
    assert not await budget.allow(KEY, retry=True)  # p = 10/11 > 0.9
    fields = await raw.hgetall(f"{prefix}throttle:{KEY}")
    assert fields == {b"r:50": b"11"}


async def test_the_redis_server_clock_is_the_default(shared, redis_server, prefix, raw) -> None:
    throttle = AdaptiveThrottle(random_source=lambda: 0.0)
    budget = on_redis(shared, redis_server, prefix, throttle)
    await budget.record(KEY, failed=True)
    assert not await budget.allow(KEY, retry=True)
    assert sum(int(v) for v in (await raw.hgetall(f"{prefix}throttle:{KEY}")).values()) == 2


def test_needs_exactly_one_of_url_and_client() -> None:
    with pytest.raises(ValueError, match="exactly one of url= or client="):
        RedisRetryBudget(TokenBucketRetryBudget())


def test_shares_only_the_known_algorithms() -> None:
    with pytest.raises(ValueError, match="TokenBucketRetryBudget or an AdaptiveThrottle"):
        RedisRetryBudget(object(), url="redis://127.0.0.1:6379/0")  # type: ignore[arg-type]


def test_a_missing_redis_package_names_the_extra(monkeypatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "redis.asyncio", None)
    with pytest.raises(ImportError, match=r"pip install 'steadyflow\[redis\]'"):
        RedisRetryBudget(TokenBucketRetryBudget(), url="redis://127.0.0.1:6379/0")


async def test_a_given_client_is_used_and_left_open(redis_server, prefix, raw) -> None:
    budget = RedisRetryBudget(TokenBucketRetryBudget(max_tokens=10), client=raw, prefix=prefix)
    await budget.record(KEY, failed=True)
    await budget.aclose()
    assert await raw.get(f"{prefix}bucket:{KEY}") == b"9000"


def test_one_budget_serves_one_event_loop_after_another(redis_server, prefix) -> None:
    budget = RedisRetryBudget(
        TokenBucketRetryBudget(max_tokens=10), url=redis_server.url(), prefix=prefix
    )

    async def fail_once() -> None:
        await budget.record(KEY, failed=True)
        await budget.aclose()

    asyncio.run(fail_once())
    asyncio.run(fail_once())

    async def tokens() -> bytes:
        client = Redis.from_url(redis_server.url())
        try:
            return await client.get(f"{prefix}bucket:{KEY}")
        finally:
            await client.aclose()

    assert asyncio.run(tokens()) == b"8000"
