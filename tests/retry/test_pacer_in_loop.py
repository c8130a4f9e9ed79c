"""The retry loop with a pacer: admitted before each attempt, told how each one ended."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from steadyflow import LlmAgent, RetryConfig, RunConfig
from steadyflow.context import LlmCallBudget
from steadyflow.errors import PacingTimeoutError, QuotaExhaustedError
from steadyflow.models import BaseLlm, FallbackLlm, LlmRequest, LlmResponse
from steadyflow.models import report_response_headers as report
from steadyflow.retry import ProviderPacer
from steadyflow.retry._executor import generate_with_retries
from steadyflow.testing import FakeClock, ScriptedLlm, fake_clock, http_error, run_turn
from steadyflow.types import Content

LIMITS = {
    "x-ratelimit-limit-requests": "60",
    "x-ratelimit-remaining-requests": "0",
    "x-ratelimit-reset-requests": "1s",
}


class HeaderLlm(BaseLlm):
    """Answers "ok" and reports rate-limit headers that say nothing is left."""

    provider = "openai"

    def __init__(self, model: str = "gpt-x") -> None:
        super().__init__(model)
        self.calls = 0

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        self.calls += 1
        report(LIMITS)
        yield LlmResponse.from_text("ok")


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with fake_clock() as testing_clock:
        yield testing_clock


async def call(llm: BaseLlm, config: RetryConfig, calls: LlmCallBudget | None = None) -> str:
    responses = generate_with_retries(
        llm,
        LlmRequest(contents=[Content.from_text("hi", role="user")]),
        stream=False,
        config=config,
        before_attempt=(calls or LlmCallBudget(100)).increment,
    )
    return "".join([r.text async for r in responses])


async def test_an_answers_headers_pace_the_next_call(clock: FakeClock) -> None:
    config = RetryConfig(pacer=ProviderPacer(headroom=0.0))
    llm = HeaderLlm()
    assert [await call(llm, config) for _ in range(3)] == ["ok"] * 3
    # 60 a minute and none left: each later call waits its second.
    assert clock.sleeps == pytest.approx([1.0, 1.0])


async def test_a_wait_past_total_timeout_fails_at_once_without_a_request(
    clock: FakeClock,
) -> None:
    config = RetryConfig(total_timeout=0.5, pacer=ProviderPacer(headroom=0.0))
    llm, calls = HeaderLlm(), LlmCallBudget(100)
    await call(llm, config, calls)
    with pytest.raises(PacingTimeoutError, match=r"openai:gpt-x.*nothing was sent") as caught:
        await call(llm, config, calls)
    assert (llm.calls, calls.count, clock.sleeps) == (1, 1, [])
    assert caught.value.wait == pytest.approx(1.0)


async def test_a_retry_waits_for_its_slot_beyond_its_backoff(clock: FakeClock) -> None:
    pacer = ProviderPacer(requests_per_minute=30, headroom=0.0)
    model = ScriptedLlm([http_error(503), "ok"])
    config = RetryConfig(max_attempts=2, initial_backoff=0.5, jitter_ratio=0.0, pacer=pacer)
    assert await call(model, config) == "ok"
    # A burst of one at 0.5/s: the retry's slot is 2 s after the first attempt, not 0.5 s.
    assert clock.sleeps == pytest.approx([2.0])


async def test_a_retry_whose_slot_is_past_the_deadline_gives_up_with_the_providers_error(
    clock: FakeClock,
) -> None:
    pacer = ProviderPacer(requests_per_minute=6, headroom=0.0)
    model = ScriptedLlm([http_error(503), "never"])
    config = RetryConfig(max_attempts=3, total_timeout=5.0, jitter_ratio=0.0, pacer=pacer)
    with pytest.raises(Exception, match="503"):
        await call(model, config)
    assert (model.calls, clock.sleeps) == (1, [])


async def test_a_bare_429_slows_the_key_down(clock: FakeClock) -> None:
    pacer = ProviderPacer(requests_per_minute=30, headroom=0.0, decrease=0.5)
    model = ScriptedLlm([http_error(429), "ok"])
    config = RetryConfig(max_attempts=2, initial_backoff=0.5, jitter_ratio=0.0, pacer=pacer)
    assert await call(model, config) == "ok"
    # AIMD: the refused rate (0.5/s) halved: the retry's slot is 4 s away.
    assert clock.sleeps == pytest.approx([4.0])


async def test_a_spent_quota_is_not_retried_and_fails_later_calls_fast(clock: FakeClock) -> None:
    quota = QuotaExhaustedError(429, "daily quota", reset_after=3600.0, provider="scripted")
    model = ScriptedLlm([quota, "never"])
    config = RetryConfig(max_attempts=5, pacer=ProviderPacer())
    with pytest.raises(QuotaExhaustedError, match="daily quota"):
        await call(model, config)
    with pytest.raises(QuotaExhaustedError, match="nothing was sent") as caught:
        await call(model, config)
    assert (model.calls, clock.sleeps) == (1, [])
    assert caught.value.reset_after == pytest.approx(3600.0)


async def test_a_spent_quota_moves_a_fallback_to_its_next_model_at_once(clock: FakeClock) -> None:
    primary = ScriptedLlm([QuotaExhaustedError(429, "monthly quota")], model="primary")
    secondary = ScriptedLlm(["from the second"], model="secondary")
    config = RetryConfig(max_attempts=4, pacer=ProviderPacer())
    assert await call(FallbackLlm([primary, secondary]), config) == "from the second"
    assert (primary.calls, secondary.calls, clock.sleeps) == (1, 1, [])


async def test_a_key_paced_past_the_deadline_moves_a_fallback_on(clock: FakeClock) -> None:
    pacer = ProviderPacer(headroom=0.0)
    primary, secondary = HeaderLlm("primary"), ScriptedLlm(["second"], model="secondary")
    config = RetryConfig(total_timeout=0.5, pacer=pacer)
    await call(primary, config)
    assert await call(FallbackLlm([primary, secondary]), config) == "second"
    assert primary.calls == 1


async def test_the_trace_shows_the_paced_wait(clock: FakeClock) -> None:
    llm = HeaderLlm()
    run_config = RunConfig(retry_config=RetryConfig(pacer=ProviderPacer(headroom=0.0)))
    agent = LlmAgent(name="a", model=llm)
    await run_turn(agent, "one", run_config=run_config)
    result = await run_turn(agent, "two", run_config=run_config)
    (trace,) = await result.stored_traces()
    (attempt,) = trace.steps[0].attempts
    assert (attempt.delay, attempt.paced) == (pytest.approx(1.0), pytest.approx(1.0))


async def test_a_config_with_a_pacer_that_is_not_one_is_refused() -> None:
    with pytest.raises(ValueError, match="pacer must be a ProviderPacer"):
        RetryConfig(pacer="60 rpm")  # type: ignore[arg-type]
