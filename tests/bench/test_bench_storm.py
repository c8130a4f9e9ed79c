from __future__ import annotations

import asyncio
from typing import Any

import pytest
from bench.storm.policies import STORM_POLICIES, StormPolicy, register_storm_policy
from bench.storm.provider import CapacityProvider
from bench.storm.simulate import StormSettings, simulate
from bench.storm.vloop import SimulationStalledError, VirtualTimeLoop

from steadyflow import RunConfig
from steadyflow.errors import ModelHTTPError
from steadyflow.models import LlmRequest
from steadyflow.models._headers import headers_reported_to


def _on_virtual_time(coro_factory):
    with asyncio.Runner(loop_factory=VirtualTimeLoop) as runner:
        return runner.run(coro_factory())


def test_virtual_loop_sleeps_jump_time_instead_of_waiting():
    async def sleep_an_hour() -> float:
        await asyncio.sleep(3600)
        return asyncio.get_running_loop().time()

    assert _on_virtual_time(sleep_an_hour) == pytest.approx(3600)


def test_virtual_loop_wakes_concurrent_sleepers_in_time_order():
    async def wakes() -> list[int]:
        order: list[int] = []

        async def sleeper(seconds: int) -> None:
            await asyncio.sleep(seconds)
            order.append(seconds)

        await asyncio.gather(sleeper(5), sleeper(1), sleeper(3))
        return order

    assert _on_virtual_time(wakes) == [1, 3, 5]


def test_virtual_loop_raises_instead_of_waiting_forever():
    async def wait_forever() -> None:
        await asyncio.get_running_loop().create_future()

    with pytest.raises(SimulationStalledError):
        _on_virtual_time(wait_forever)


def test_provider_admits_its_capacity_at_once_then_refuses():
    async def three_calls() -> list[object]:
        provider = CapacityProvider(capacity=2.0, service_time=0.0, reject_cost=0.0)
        outcomes: list[object] = []
        for _ in range(3):
            try:
                async for response in provider.generate_content_async(LlmRequest()):
                    outcomes.append(response.text)
            except ModelHTTPError as error:
                outcomes.append(error.status_code)
        return outcomes

    assert _on_virtual_time(three_calls) == ["served", "served", 429]


async def _served_then_refused(**options: Any) -> tuple[list[dict[str, str]], ModelHTTPError]:
    """Two calls in the same second to a provider of 1/s: the headers heard, the refusal."""
    provider = CapacityProvider(capacity=1.0, service_time=0.0, reject_cost=0.0, **options)
    heard: list[dict[str, str]] = []
    with headers_reported_to(lambda h: heard.append(dict(h))):
        async for _ in provider.generate_content_async(LlmRequest()):
            pass
    try:
        async for _ in provider.generate_content_async(LlmRequest()):
            pass
    except ModelHTTPError as error:
        return heard, error
    raise AssertionError("the second call within the second was served")


def test_provider_refusal_carries_retry_after():
    _, error = _on_virtual_time(_served_then_refused)
    assert (error.status_code, error.headers["retry-after"]) == (429, "1")


def test_registering_a_second_policy_with_a_taken_name_fails():
    with pytest.raises(ValueError, match="already registered"):
        register_storm_policy(StormPolicy("none", "again", RunConfig))


def test_builtin_policies_are_registered_in_order():
    assert list(STORM_POLICIES)[:4] == ["none", "naive", "sdk-style", "steadyflow"]


def test_without_retries_every_call_is_one_provider_attempt():
    result = simulate(STORM_POLICIES["none"], StormSettings(capacity=2.0, seconds=3.0))

    assert result["attempts"] == result["calls"]
    assert 0 < result["succeeded"] < result["calls"]


def test_retrying_policies_make_more_attempts_than_calls():
    result = simulate(STORM_POLICIES["steadyflow"], StormSettings(capacity=2.0, seconds=3.0))

    assert result["attempts"] > result["calls"]
    assert result["p99_s"] >= result["p50_s"]


def test_the_provider_can_send_openais_rate_limit_headers():
    (answered,), refused = _on_virtual_time(lambda: _served_then_refused(headers="openai"))
    assert answered["x-ratelimit-limit-requests"] == "60"
    assert answered["x-ratelimit-remaining-requests"] == "0"
    assert answered["x-ratelimit-reset-requests"] == "1s"
    assert refused.headers["x-ratelimit-remaining-requests"] == "0"


def test_a_bare_provider_sends_no_headers_at_all():
    heard, refused = _on_virtual_time(lambda: _served_then_refused(headers="none"))
    assert (heard, refused.headers, refused.retry_after) == ([{}], {}, None)


def test_the_pacer_serves_more_than_the_adaptive_throttle_and_wastes_almost_nothing():
    settings = StormSettings(capacity=4.0, seconds=10.0)
    adaptive = simulate(STORM_POLICIES["adaptive"], settings)
    paced = simulate(STORM_POLICIES["pacer"], settings)
    bare = simulate(STORM_POLICIES["pacer, no headers"], settings)

    assert paced["succeeded"] >= 2 * adaptive["succeeded"]
    assert paced["attempts_per_success"] <= 1.05
    assert bare["succeeded"] >= 2 * adaptive["succeeded"]
    assert paced["p99_s"] <= 60.0
