"""RedisProviderPacer: the in-process pacer's arithmetic, shared by a fleet through Redis."""

from __future__ import annotations

import asyncio
import math
import uuid
from collections.abc import AsyncIterator

import pytest
from tests.support.redis import RedisServer

from steadyflow.retry import PaceOutcome, ProviderPacer, RedisProviderPacer
from steadyflow.testing import FakeClock

pytestmark = pytest.mark.redis

KEY = "openai:gpt-x"
ONE = {"requests": 1.0, "tokens": 400.0}
HEADERS = {
    "x-ratelimit-limit-requests": "600",
    "x-ratelimit-remaining-requests": "2",
    "x-ratelimit-reset-requests": "800ms",
    "x-ratelimit-limit-tokens": "60000",
    "x-ratelimit-remaining-tokens": "500",
    "x-ratelimit-reset-tokens": "1s",
}


@pytest.fixture
async def made() -> AsyncIterator[list[RedisProviderPacer]]:
    pacers: list[RedisProviderPacer] = []
    yield pacers
    for pacer in pacers:
        await pacer.aclose()


def on_redis(
    made: list[RedisProviderPacer], url: str, prefix: str, clock: FakeClock, **settings: object
) -> RedisProviderPacer:
    pacer = RedisProviderPacer(
        ProviderPacer(**settings, clock=clock),
        url=url,
        prefix=prefix,
        clock=clock,  # type: ignore[arg-type]
    )
    made.append(pacer)
    return pacer


async def script(pacer: ProviderPacer | RedisProviderPacer, clock: FakeClock) -> list[object]:
    """The same story for either pacer: a burst, headers, a 429, a quota; what it decided."""
    seen: list[object] = []
    first = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
    burst = [await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf) for _ in range(3)]
    seen += [round(t.wait, 6) for t in (first, *burst)]
    clock.advance(0.3)
    await pacer.observe(first, PaceOutcome(answered=True, headers=HEADERS, used={"tokens": 250.0}))
    waits = [await pacer.admit(KEY, ONE, earliest=0.5, latest=math.inf) for _ in range(6)]
    seen += [round(t.wait, 6) for t in waits]
    await pacer.release(waits[-1])
    await pacer.observe(waits[0], PaceOutcome(throttled=True, headers={}))
    late = await pacer.admit(KEY, ONE, earliest=0.0, latest=0.01)
    seen += [late.admitted, round(late.wait, 6)]
    await pacer.observe(waits[1], PaceOutcome(quota_reset=math.inf))
    refused = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
    seen += [refused.admitted, refused.quota_reset]
    return seen


async def test_redis_decides_exactly_what_the_in_process_pacer_decides(
    made, redis_server: RedisServer
) -> None:
    local_clock, shared_clock = FakeClock(100.0), FakeClock(100.0)
    local = await script(ProviderPacer(requests_per_minute=1200, clock=local_clock), local_clock)
    pacer = on_redis(
        made, redis_server.url(), f"t:{uuid.uuid4().hex}:", shared_clock, requests_per_minute=1200
    )
    assert await script(pacer, shared_clock) == local


async def test_two_workers_share_one_limit(made, redis_server: RedisServer) -> None:
    clock, prefix = FakeClock(), f"t:{uuid.uuid4().hex}:"
    one = on_redis(made, redis_server.url(), prefix, clock, requests_per_minute=60, headroom=0.0)
    two = on_redis(made, redis_server.url(), prefix, clock, requests_per_minute=60, headroom=0.0)
    waits = []
    for pacer in (one, two, one, two):
        waits.append((await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)).wait)
    # One a second for the fleet, not for each worker.
    assert waits == pytest.approx([0.0, 1.0, 2.0, 3.0])


async def test_without_redis_each_process_paces_on_its_own(made) -> None:
    clock = FakeClock()
    pacer = on_redis(
        made, "redis://127.0.0.1:9/0", "t:", clock, requests_per_minute=60, headroom=0.0
    )
    waits = [(await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)).wait for _ in range(2)]
    assert waits == pytest.approx([0.0, 1.0])


def test_a_redis_pacer_shares_a_provider_pacer_only() -> None:
    with pytest.raises(ValueError, match="shares a ProviderPacer"):
        RedisProviderPacer("60 rpm", url="redis://localhost")  # type: ignore[arg-type]


async def test_concurrent_workers_never_take_the_same_slot(made, redis_server: RedisServer) -> None:
    clock, prefix = FakeClock(), f"t:{uuid.uuid4().hex}:"
    workers = [
        on_redis(made, redis_server.url(), prefix, clock, requests_per_minute=600, headroom=0.0)
        for _ in range(4)
    ]

    async def burst(pacer: RedisProviderPacer) -> list[float]:
        return [
            (await pacer.admit(KEY, {"requests": 1.0}, earliest=0.0, latest=math.inf)).wait
            for _ in range(10)
        ]

    waits = sorted(w for ws in await asyncio.gather(*(burst(p) for p in workers)) for w in ws)
    # 10 a second with a burst of 10: 40 calls get 40 distinct slots, 0.1 s apart after the burst.
    assert waits == pytest.approx([0.0] * 10 + [0.1 * n for n in range(1, 31)])


async def test_redis_bounds_an_absurd_header_as_the_in_process_pacer_does(
    made, redis_server: RedisServer
) -> None:
    tiny = {"x-ratelimit-limit-requests": "1e-300", "x-ratelimit-remaining-requests": "0"}

    async def story(pacer: ProviderPacer | RedisProviderPacer, clock: FakeClock) -> list[object]:
        first = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
        await pacer.observe(first, PaceOutcome(answered=True, headers=tiny))
        slowed = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
        await pacer.observe(slowed, PaceOutcome(quota_reset=1e308))
        held = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
        clock.advance(120.0)
        later = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
        return [round(slowed.wait, 6), held.admitted, held.quota_reset, later.admitted]

    local_clock, shared_clock = FakeClock(100.0), FakeClock(100.0)
    settings: dict[str, float] = {"headroom": 0.0, "max_hold": 120.0}
    local = await story(ProviderPacer(**settings, clock=local_clock), local_clock)
    shared = on_redis(made, redis_server.url(), f"t:{uuid.uuid4().hex}:", shared_clock, **settings)
    # One request a minute at the floor; a hold of 1e308 s held for max_hold.
    assert await story(shared, shared_clock) == local == [60.0, False, 120.0, True]
