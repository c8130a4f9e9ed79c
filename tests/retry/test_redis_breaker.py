"""RedisCircuitBreaker: the local breaker's transitions, on one circuit per key for a fleet."""

import random
import uuid
from collections.abc import AsyncIterator

import pytest
from tests.support.redis import RedisServer

from steadyflow.errors import CircuitOpenError
from steadyflow.retry import CircuitBreaker, CircuitState, RedisCircuitBreaker
from steadyflow.testing import FakeClock

pytestmark = pytest.mark.redis

KEY = "openai:gpt-4o"
SETTINGS = {"minimum_calls": 4, "open_for": 30.0, "half_open_probes": 2, "window": 60.0}


@pytest.fixture
async def made() -> AsyncIterator[list[RedisCircuitBreaker]]:
    breakers: list[RedisCircuitBreaker] = []
    yield breakers
    for breaker in breakers:
        await breaker.aclose()


@pytest.fixture
def on_redis(made, redis_server: RedisServer):
    prefix = f"test:{uuid.uuid4().hex}:"

    def make(clock: FakeClock | None = None, **kwargs) -> RedisCircuitBreaker:
        local = CircuitBreaker(**{**SETTINGS, **kwargs})
        breaker = RedisCircuitBreaker(local, url=redis_server.url(), prefix=prefix, clock=clock)
        made.append(breaker)
        return breaker

    return make


async def outcomes(cb, *failed: bool) -> None:
    for f in failed:
        await cb.acquire(KEY)
        await cb.record(KEY, failed=f)


async def test_closed_open_half_open_closed_in_redis(on_redis) -> None:
    clock = FakeClock(100.0)
    cb = on_redis(clock)
    await outcomes(cb, False, True, False, True)
    assert await cb.state(KEY) is CircuitState.OPEN
    clock.advance(12.5)
    with pytest.raises(CircuitOpenError) as raised:
        await cb.acquire(KEY)
    assert raised.value.retry_after == 17.5
    clock.advance(17.5)
    assert await cb.state(KEY) is CircuitState.HALF_OPEN
    await outcomes(cb, False, False)
    assert await cb.state(KEY) is CircuitState.CLOSED


async def test_a_failed_probe_reopens_the_shared_circuit(on_redis) -> None:
    clock = FakeClock(100.0)
    cb = on_redis(clock)
    await outcomes(cb, True, True, True, True)
    clock.advance(30.0)
    await outcomes(cb, True)
    assert await cb.state(KEY) is CircuitState.OPEN


async def test_one_workers_failures_open_the_circuit_for_another(on_redis) -> None:
    clock = FakeClock(100.0)
    worker_a, worker_b = on_redis(clock), on_redis(clock)
    await outcomes(worker_a, True, True, True, True)
    with pytest.raises(CircuitOpenError):
        await worker_b.acquire(KEY)
    await worker_b.acquire("anthropic:claude")


async def test_half_open_probes_are_counted_across_workers(on_redis) -> None:
    clock = FakeClock(100.0)
    worker_a, worker_b = on_redis(clock), on_redis(clock)
    await outcomes(worker_a, True, True, True, True)
    clock.advance(30.0)
    await worker_a.acquire(KEY)
    await worker_b.acquire(KEY)
    with pytest.raises(CircuitOpenError):
        await worker_a.acquire(KEY)


async def test_the_redis_server_clock_is_the_default(on_redis) -> None:
    cb = on_redis(None, open_for=3600.0)
    await outcomes(cb, True, True, True, True)
    with pytest.raises(CircuitOpenError) as raised:
        await cb.acquire(KEY)
    assert raised.value.retry_after is not None
    assert 3500.0 < raised.value.retry_after <= 3600.0


@pytest.mark.parametrize("seed", range(3))
async def test_twin_gives_the_local_verdicts_on_random_histories(on_redis, seed) -> None:
    rng, clock = random.Random(seed), FakeClock(1000.0)
    local = CircuitBreaker(**SETTINGS, clock=clock)
    twin = on_redis(clock)
    seen = set()
    for _ in range(150):
        clock.advance(rng.choice([0.0, 1.0, 7.0, 31.0]))
        verdicts = []
        for breaker in (local, twin):
            try:
                await breaker.acquire(KEY)
                verdicts.append(None)
            except CircuitOpenError as error:
                verdicts.append(error.retry_after)
        assert verdicts[0] == verdicts[1]
        if verdicts[0] is None:
            failed = rng.random() < 0.6
            await local.record(KEY, failed=failed)
            await twin.record(KEY, failed=failed)
        state = local.state(KEY)
        assert await twin.state(KEY) is state
        seen.add(state)
    assert seen == set(CircuitState)
