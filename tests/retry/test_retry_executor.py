"""The retry loop driven directly with ScriptedLlm, a budget and a fake clock."""

import asyncio
import random
from collections.abc import AsyncIterator, Callable

import pytest

from steadyflow.context import LlmCallBudget
from steadyflow.errors import LlmCallsLimitExceededError, ModelHTTPError
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse
from steadyflow.retry import RetryConfig
from steadyflow.retry._executor import generate_with_retries
from steadyflow.testing import (
    FakeClock,
    FunctionLlm,
    ScriptedLlm,
    caused_by,
    connection_error,
    fake_clock,
    http_error,
    timeout_error,
)
from steadyflow.types import Content

RETRY3 = RetryConfig(max_attempts=3, jitter_ratio=0.0)


async def run(
    llm: BaseLlm,
    config: RetryConfig,
    budget: LlmCallBudget,
    clock: FakeClock | None,
    *,
    random_source: Callable[[], float] | None = None,
    request: LlmRequest | None = None,
) -> list[LlmResponse]:
    responses = generate_with_retries(
        llm,
        request or LlmRequest(contents=[Content.from_text("hi", role="user")]),
        stream=False,
        config=config,
        before_attempt=budget.increment,
        agent_name="support",
        invocation_id="e-1",
        clock=clock,
        random_source=random_source,
    )
    return [response async for response in responses]


async def test_disabled_by_default_a_retryable_error_surfaces_after_one_attempt(
    budget, clock
) -> None:
    error = http_error(503)
    llm = ScriptedLlm([error, "never reached"])
    with pytest.raises(ModelHTTPError) as raised:
        await run(llm, RetryConfig(), budget, clock)
    assert raised.value is error
    assert (llm.calls, budget.count, clock.sleeps) == (1, 1, [])


async def test_503_then_success_yields_only_the_successful_response(budget, clock) -> None:
    llm = ScriptedLlm([http_error(503), "hello"])
    responses = await run(llm, RETRY3, budget, clock)
    assert [r.text for r in responses] == ["hello"]
    assert (llm.calls, budget.count, clock.sleeps) == (2, 2, [0.5])


async def test_every_attempt_sends_the_same_request(budget, clock) -> None:
    request = LlmRequest(contents=[Content.from_text("hi", role="user")])
    original = request.model_copy(deep=True)
    llm = ScriptedLlm([http_error(503), connection_error(), "ok"])
    await run(llm, RETRY3, budget, clock, request=request)
    assert llm.requests == [original, original, original]


@pytest.mark.parametrize(
    "make_error",
    [lambda: http_error(503), connection_error, timeout_error, lambda: http_error(429)],
    ids=["503", "connection", "timeout", "429"],
)
async def test_transient_errors_are_retried(make_error, budget, clock) -> None:
    llm = ScriptedLlm([make_error(), "ok"])
    assert [r.text for r in await run(llm, RETRY3, budget, clock)] == ["ok"]
    assert llm.calls == 2


async def test_retryable_error_in_the_cause_chain_is_retried(budget, clock) -> None:
    wrapped = caused_by(RuntimeError("SDK call failed"), http_error(503))
    llm = ScriptedLlm([wrapped, "ok"])
    assert [r.text for r in await run(llm, RETRY3, budget, clock)] == ["ok"]
    assert llm.calls == 2


async def test_cycle_in_the_error_chain_does_not_hang(budget, clock) -> None:
    first, second = ValueError("a"), ValueError("b")
    first.__cause__ = second
    second.__context__ = first
    llm = ScriptedLlm([first, "never reached"])
    with pytest.raises(ValueError, match="a"):
        await asyncio.wait_for(run(llm, RETRY3, budget, clock), timeout=5)
    assert llm.calls == 1


async def test_configured_status_code_is_retried(budget, clock) -> None:
    config = RetryConfig(max_attempts=3, retryable_status_codes={418})
    llm = ScriptedLlm([http_error(418), "ok"])
    assert [r.text for r in await run(llm, config, budget, clock)] == ["ok"]


async def test_status_left_out_of_the_configured_codes_is_not_retried(budget, clock) -> None:
    config = RetryConfig(max_attempts=3, retryable_status_codes={418})
    llm = ScriptedLlm([http_error(503), "never reached"])
    with pytest.raises(ModelHTTPError):
        await run(llm, config, budget, clock)
    assert llm.calls == 1


@pytest.mark.parametrize("status", [400, 401, 403, 404])
async def test_client_errors_fail_after_one_attempt(status, budget, clock) -> None:
    error = http_error(status)
    llm = ScriptedLlm([error, "never reached"])
    with pytest.raises(ModelHTTPError) as raised:
        await run(llm, RETRY3, budget, clock)
    assert raised.value is error
    assert (llm.calls, clock.sleeps) == (1, [])


async def test_value_error_from_bad_config_fails_after_one_attempt(budget, clock) -> None:
    llm = ScriptedLlm([ValueError("temperature must be <= 2"), "never reached"])
    with pytest.raises(ValueError, match="temperature"):
        await run(llm, RETRY3, budget, clock)
    assert llm.calls == 1


async def test_exhausted_attempts_surface_the_last_error(budget, clock) -> None:
    errors = [http_error(503), http_error(502), http_error(500)]
    llm = ScriptedLlm([*errors, "never reached"])
    with pytest.raises(ModelHTTPError) as raised:
        await run(llm, RETRY3, budget, clock)
    assert raised.value is errors[-1]
    assert (llm.calls, clock.sleeps) == (3, [0.5, 1.0])


async def test_budget_of_one_with_three_attempts_stops_after_one_attempt(clock) -> None:
    budget = LlmCallBudget(1)
    llm = ScriptedLlm([http_error(503), "never reached"])
    with pytest.raises(LlmCallsLimitExceededError):
        await run(llm, RETRY3, budget, clock)
    assert (llm.calls, budget.count, clock.sleeps) == (1, 1, [])


async def test_call_limit_raised_by_the_provider_propagates_unchanged(budget, clock) -> None:
    limit = LlmCallsLimitExceededError(2)
    llm = ScriptedLlm([limit, "never reached"])
    with pytest.raises(LlmCallsLimitExceededError) as raised:
        await run(llm, RETRY3, budget, clock)
    assert raised.value is limit
    assert llm.calls == 1


async def test_call_limit_inside_a_retryable_chain_is_not_retried(budget, clock) -> None:
    llm = ScriptedLlm([caused_by(http_error(503), LlmCallsLimitExceededError(2)), "no"])
    with pytest.raises(ModelHTTPError):
        await run(llm, RETRY3, budget, clock)
    assert llm.calls == 1


async def test_each_attempt_of_each_call_is_charged_to_the_budget(clock) -> None:
    budget = LlmCallBudget(5)
    llm = ScriptedLlm([http_error(503), "first call", "second call"])
    await run(llm, RETRY3, budget, clock)
    await run(llm, RETRY3, budget, clock)
    assert budget.count == 3


async def test_delays_double_until_the_cap(budget, clock) -> None:
    config = RetryConfig(max_attempts=7, initial_backoff=0.5, max_backoff=4.0, jitter_ratio=0)
    llm = ScriptedLlm([http_error(503)] * 6 + ["ok"])
    await run(llm, config, budget, clock)
    assert clock.sleeps == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]


async def test_jittered_delays_stay_within_twenty_percent_and_under_cap(budget, clock) -> None:
    config = RetryConfig(max_attempts=9, initial_backoff=0.5, max_backoff=4.0, jitter_ratio=0.2)
    llm = ScriptedLlm([http_error(503) for _ in range(8)] + ["ok"])
    await run(llm, config, budget, clock, random_source=random.Random(7).random)
    bases = [0.5, 1.0, 2.0, 4.0, 4.0, 4.0, 4.0, 4.0]
    assert len(clock.sleeps) == 8
    for delay, base in zip(clock.sleeps, bases, strict=True):
        assert base * 0.8 <= delay <= min(base * 1.2, 4.0)
    assert len(set(clock.sleeps)) > 1


async def test_retry_after_longer_than_the_backoff_is_waited(budget, clock) -> None:
    llm = ScriptedLlm([http_error(503, retry_after=3.0), "ok"])
    await run(llm, RETRY3, budget, clock)
    assert clock.sleeps == [3.0]


async def test_retry_after_above_max_retry_after_gives_up_at_once(budget, clock) -> None:
    config = RetryConfig(max_attempts=3, max_retry_after=60.0)
    error = http_error(429, retry_after=600.0)
    llm = ScriptedLlm([error, "never reached"])
    with pytest.raises(ModelHTTPError) as raised:
        await run(llm, config, budget, clock)
    assert raised.value is error
    assert (llm.calls, clock.sleeps) == (1, [])


async def test_total_timeout_stops_a_wait_that_would_pass_it(budget, clock) -> None:
    config = RetryConfig(max_attempts=5, jitter_ratio=0, total_timeout=1.0)
    llm = ScriptedLlm([http_error(503), http_error(503), "never reached"])
    with pytest.raises(ModelHTTPError):
        await run(llm, config, budget, clock)
    assert (llm.calls, clock.sleeps) == (2, [0.5])


async def test_total_timeout_counts_the_time_attempts_take(budget, clock) -> None:
    def slow_failure(request: LlmRequest) -> ModelHTTPError:
        clock.advance(2.0)
        return http_error(503)

    config = RetryConfig(max_attempts=5, jitter_ratio=0, total_timeout=2.2)
    with pytest.raises(ModelHTTPError):
        await run(FunctionLlm(slow_failure), config, budget, clock)
    assert (budget.count, clock.sleeps) == (1, [])


class BlockingClock(FakeClock):
    """A clock whose sleep never ends by itself, to cancel a task mid-wait."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = asyncio.Event()
        self.cancelled = False

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.waiting.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise


async def test_cancelling_during_a_wait_cancels_at_once(budget) -> None:
    clock = BlockingClock()
    llm = ScriptedLlm([http_error(503), "never reached"])
    task = asyncio.create_task(run(llm, RETRY3, budget, clock))
    await asyncio.wait_for(clock.waiting.wait(), timeout=5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert clock.cancelled
    assert llm.calls == 1
    assert asyncio.all_tasks() == {asyncio.current_task()}


async def test_global_testing_clock_is_used_when_none_is_passed(budget) -> None:
    llm = ScriptedLlm([http_error(503), "ok"])
    with fake_clock() as clock:
        await run(llm, RETRY3, budget, None)
    assert clock.sleeps == [0.5]


class ClosingLlm(BaseLlm):
    """Yields two responses and records whether its generator was closed."""

    def __init__(self) -> None:
        super().__init__("closing-model")
        self.closed = False

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        try:
            yield LlmResponse.from_text("a", partial=True)
            yield LlmResponse.from_text("ab")
        finally:
            self.closed = True


async def test_consumer_stopping_early_closes_the_provider_stream(budget, clock) -> None:
    llm = ClosingLlm()
    responses = generate_with_retries(
        llm, LlmRequest(), stream=True, config=RETRY3, before_attempt=budget.increment, clock=clock
    )
    async for _ in responses:
        break
    await responses.aclose()  # type: ignore[attr-defined]
    assert llm.closed
