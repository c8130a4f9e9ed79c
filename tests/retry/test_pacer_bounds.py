"""One absurd rate-limit header slows a key for a minute or holds it for an hour, never for years.

Real HTTP answers from an OpenAI-shaped server (``HostileServer``) carry the
header; the pacer learns from it in the loop, under the fake clock. After the
bounded time the next call is sent, so the provider's next answer can teach
the pacer the truth.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator

import pytest
from tests.models.providers import SECRET
from tests.support.hostile import HostileServer, Reply

from steadyflow import LlmAgent, RetryConfig, RunConfig
from steadyflow.errors import QuotaExhaustedError
from steadyflow.models.openai import OpenAI
from steadyflow.retry import ProviderPacer
from steadyflow.testing import FakeClock, fake_clock, run_turn

ANSWER = {
    "id": "c1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-4o",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
}
RATE_LIMITED = {"error": {"message": "Rate limit reached", "type": "requests"}}


def ok(**headers: str) -> Reply:
    return Reply(headers=headers, body=[json.dumps(ANSWER).encode()], framing="length")


def refused(**headers: str) -> Reply:
    return Reply(
        status=429, headers=headers, body=[json.dumps(RATE_LIMITED).encode()], framing="length"
    )


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with fake_clock() as testing_clock:
        yield testing_clock


@pytest.fixture
async def server() -> AsyncIterator[HostileServer]:
    async with HostileServer() as hostile:
        yield hostile


@pytest.fixture
async def agent(server: HostileServer) -> AsyncIterator[LlmAgent]:
    llm = OpenAI("gpt-4o", api_key=SECRET, base_url=f"{server.url}/v1")
    yield LlmAgent(name="a", model=llm)
    await llm.aclose()


def paced(pacer: ProviderPacer) -> RunConfig:
    return RunConfig(retry_config=RetryConfig(pacer=pacer))


@pytest.mark.parametrize(
    "dimension", ["requests", "tokens"], ids=["requests limit", "tokens limit"]
)
async def test_a_tiny_learned_limit_is_raised_to_the_floor(
    server: HostileServer, agent: LlmAgent, clock: FakeClock, dimension: str
) -> None:
    tiny = {
        f"x-ratelimit-limit-{dimension}": "1e-300",
        f"x-ratelimit-remaining-{dimension}": "0",
        f"x-ratelimit-reset-{dimension}": "1s",
    }
    server.script(ok(**tiny))
    pacer = ProviderPacer(headroom=0.0)
    assert (await run_turn(agent, "hi", run_config=paced(pacer))).error is None
    # One request or a thousand tokens a minute: the next call waits at most a minute.
    assert (await run_turn(agent, "hi", run_config=paced(pacer))).error is None
    assert len(server.requests) == 2
    assert clock.sleeps and max(clock.sleeps) <= 60.0


@pytest.mark.parametrize(
    "headers",
    [
        {"retry-after": "1e308"},
        {"retry-after-ms": "1e308"},
        {"retry-after": "Fri, 31 Dec 9999 23:59:59 GMT"},
        {
            "anthropic-ratelimit-requests-limit": "50",
            "anthropic-ratelimit-requests-remaining": "0",
            "anthropic-ratelimit-requests-reset": "9999-12-31T23:59:59Z",
        },
        {
            "x-ratelimit-limit-requests": "60",
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": "99999999999h",
        },
    ],
    ids=["retry-after", "retry-after-ms", "http date 9999", "anthropic 9999", "x-ratelimit"],
)
async def test_a_quota_reset_far_away_holds_the_key_for_max_hold_at_most(
    server: HostileServer, agent: LlmAgent, clock: FakeClock, headers: dict[str, str]
) -> None:
    server.script(refused(**headers), ok())
    pacer = ProviderPacer(max_hold=600.0)
    first = await run_turn(agent, "hi", run_config=paced(pacer))
    assert isinstance(first.error, QuotaExhaustedError)
    held = await run_turn(agent, "hi", run_config=paced(pacer))
    assert isinstance(held.error, QuotaExhaustedError) and len(server.requests) == 1
    assert held.error.reset_after == pytest.approx(600.0)
    clock.advance(600.0)
    assert (await run_turn(agent, "hi", run_config=paced(pacer))).error is None
    assert len(server.requests) == 2


async def test_an_infinite_retry_after_is_held_for_quota_hold(
    server: HostileServer, agent: LlmAgent, clock: FakeClock
) -> None:
    server.script(refused(**{"retry-after": "inf"}), ok())
    pacer = ProviderPacer(quota_hold=300.0)
    await run_turn(agent, "hi", run_config=paced(pacer))
    held = await run_turn(agent, "hi", run_config=paced(pacer))
    assert isinstance(held.error, QuotaExhaustedError)
    assert held.error.reset_after == pytest.approx(300.0)


async def test_the_default_hold_is_an_hour(
    server: HostileServer, agent: LlmAgent, clock: FakeClock
) -> None:
    server.script(refused(**{"retry-after": "1e308"}), ok())
    pacer = ProviderPacer()
    await run_turn(agent, "hi", run_config=paced(pacer))
    clock.advance(3600.0)
    assert (await run_turn(agent, "hi", run_config=paced(pacer))).error is None


def test_max_hold_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_hold"):
        ProviderPacer(max_hold=0)
