"""When Redis is down or answers with an error, the budget falls back and never fails a call."""

import logging
import uuid

from redis.asyncio import Redis
from tests.support.redis import RedisServer, start_redis
from tests.support.servers import ServerUnavailableError, free_port, server_unavailable

from steadyflow.retry import (
    CircuitBreaker,
    CircuitState,
    RedisCircuitBreaker,
    RedisRetryBudget,
    TokenBucketRetryBudget,
)
from steadyflow.testing import FakeClock

KEY = "openai:gpt-4o"
LOGGER = "steadyflow.retry.redis"


def unreachable_budget(local, clock: FakeClock, **kwargs) -> RedisRetryBudget:
    url = f"redis://:secret@127.0.0.1:{free_port()}/0"
    return RedisRetryBudget(local, url=url, clock=clock, timeout=0.2, **kwargs)


async def test_unreachable_redis_falls_back_to_the_local_budget() -> None:
    local = TokenBucketRetryBudget(max_tokens=10)
    budget = unreachable_budget(local, FakeClock())
    for _ in range(5):
        await budget.record(KEY, failed=True)
    assert local.tokens(KEY) == 5.0
    assert not await budget.allow(KEY, retry=True)
    await budget.aclose()


async def test_unreachable_redis_is_logged_once(caplog) -> None:
    budget = unreachable_budget(TokenBucketRetryBudget(), FakeClock())
    with caplog.at_level(logging.INFO, logger=LOGGER):
        for _ in range(20):
            await budget.record(KEY, failed=True)
            await budget.allow(KEY, retry=True)
    warnings = [r for r in caplog.records if r.name == LOGGER]
    assert len(warnings) == 1
    assert warnings[0].levelno == logging.WARNING
    assert "unavailable" in warnings[0].getMessage()
    assert "secret" not in warnings[0].getMessage()
    await budget.aclose()


async def test_redis_is_not_asked_again_until_reconnect_after(monkeypatch) -> None:
    clock = FakeClock()
    budget = unreachable_budget(TokenBucketRetryBudget(), clock, reconnect_after=5.0)
    await budget.record(KEY, failed=True)
    tries = []
    original = budget._store._connection
    monkeypatch.setattr(budget._store, "_connection", lambda: tries.append(1) or original())
    await budget.record(KEY, failed=True)
    clock.advance(5.0)
    await budget.record(KEY, failed=True)
    assert len(tries) == 1
    await budget.aclose()


async def test_an_error_reply_falls_back_instead_of_failing(redis_server: RedisServer) -> None:
    prefix = f"test:{uuid.uuid4().hex}:"
    raw = Redis.from_url(redis_server.url())
    await raw.hset(f"{prefix}bucket:{KEY}", "not", "a number")  # WRONGTYPE for the script
    local = TokenBucketRetryBudget(max_tokens=10)
    budget = RedisRetryBudget(local, url=redis_server.url(), prefix=prefix)
    await budget.record(KEY, failed=True)
    assert local.tokens(KEY) == 9.0
    await budget.aclose()
    await raw.aclose()


async def test_unreachable_breaker_uses_the_local_circuit() -> None:
    clock = FakeClock()
    local = CircuitBreaker(minimum_calls=2, clock=clock)
    url = f"redis://127.0.0.1:{free_port()}/0"
    breaker = RedisCircuitBreaker(local, url=url, clock=clock, timeout=0.2)
    for _ in range(2):
        await breaker.acquire(KEY)
        await breaker.record(KEY, failed=True)
    assert local.state(KEY) is CircuitState.OPEN
    assert await breaker.state(KEY) is CircuitState.OPEN
    await breaker.aclose()


async def test_sharing_resumes_when_redis_answers_again(caplog) -> None:
    port = free_port()
    clock = FakeClock()
    local = TokenBucketRetryBudget(max_tokens=10)
    budget = RedisRetryBudget(
        local, url=f"redis://127.0.0.1:{port}/0", clock=clock, timeout=0.2, reconnect_after=5.0
    )
    await budget.record(KEY, failed=True)
    assert local.tokens(KEY) == 9.0
    try:
        server = start_redis(port=port)
    except ServerUnavailableError as exc:
        server_unavailable(f"Redis: {exc}")
    try:
        clock.advance(5.0)
        with caplog.at_level(logging.INFO, logger=LOGGER):
            await budget.record(KEY, failed=True)
        assert local.tokens(KEY) == 9.0
        assert "answers again" in caplog.text
        raw = Redis.from_url(server.url())
        assert await raw.get(f"steadyflow:retry:bucket:{KEY}") == b"9000"
        await raw.aclose()
        await budget.aclose()
    finally:
        server.stop()
