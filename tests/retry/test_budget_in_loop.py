"""The retry loop with a budget: asked before retries only, told every outcome first."""

import copy
import logging

import pytest

from steadyflow.context import LlmCallBudget
from steadyflow.errors import CircuitOpenError, LlmCallsLimitExceededError, ModelHTTPError
from steadyflow.models import BaseLlm, LlmRequest
from steadyflow.retry import AdaptiveThrottle, RetryConfig, TokenBucketRetryBudget
from steadyflow.retry._executor import generate_with_retries
from steadyflow.testing import FakeClock, ScriptedLlm, http_error
from steadyflow.types import Content

KEY = "scripted:scripted-model"


class RecordingBudget:
    """A budget that says yes (or what it is told) and remembers every question."""

    def __init__(self, allow_retries: bool = True) -> None:
        self.allow_retries = allow_retries
        self.log: list[tuple[str, str, bool]] = []

    async def allow(self, key: str, *, retry: bool) -> bool:
        self.log.append(("allow", key, retry))
        return self.allow_retries or not retry

    async def record(self, key: str, *, failed: bool) -> None:
        self.log.append(("record", key, failed))


async def run(llm: BaseLlm, config: RetryConfig, calls: LlmCallBudget | None = None) -> list[str]:
    calls = calls or LlmCallBudget(100)
    responses = generate_with_retries(
        llm,
        LlmRequest(contents=[Content.from_text("hi", role="user")]),
        stream=False,
        config=config,
        before_attempt=calls.increment,
        clock=FakeClock(),
    )
    return [r.text async for r in responses]


def retrying(budget, attempts: int = 3) -> RetryConfig:
    return RetryConfig(max_attempts=attempts, jitter_ratio=0.0, budget=budget)


def test_no_budget_and_no_breaker_by_default() -> None:
    config = RetryConfig()
    assert (config.budget, config.circuit_breaker) == (None, None)


def test_a_budget_that_is_not_one_is_refused() -> None:
    with pytest.raises(ValueError, match="budget must be a RetryBudget"):
        RetryConfig(budget="100 tokens")


def test_a_copied_config_shares_the_budget() -> None:
    config = retrying(TokenBucketRetryBudget())
    assert copy.deepcopy(config).budget is config.budget


async def test_asked_before_each_retry_and_told_each_outcome_first() -> None:
    budget = RecordingBudget()
    await run(ScriptedLlm([http_error(503), http_error(503), "ok"]), retrying(budget))
    assert budget.log == [
        ("allow", KEY, False),
        ("record", KEY, True),
        ("allow", KEY, True),
        ("record", KEY, True),
        ("allow", KEY, True),
        ("record", KEY, False),
    ]


async def test_a_refused_retry_surfaces_the_providers_error(caplog) -> None:
    llm, error = ScriptedLlm([http_error(503), "never reached"]), None
    with caplog.at_level(logging.INFO, logger="steadyflow.retry"):
        with pytest.raises(ModelHTTPError) as raised:
            await run(llm, retrying(RecordingBudget(allow_retries=False)))
        error = raised.value
    assert (error.status_code, llm.calls) == (503, 1)
    assert "reason=the retry budget refused the retry" in caplog.text


async def test_an_error_the_provider_did_not_call_transient_counts_as_healthy() -> None:
    budget = RecordingBudget()
    with pytest.raises(ModelHTTPError):
        await run(ScriptedLlm([http_error(400)]), retrying(budget))
    assert budget.log[-1] == ("record", KEY, False)


async def test_hitting_the_call_limit_is_not_recorded() -> None:
    budget = RecordingBudget()
    calls = LlmCallBudget(1)
    with pytest.raises(LlmCallsLimitExceededError):
        await run(ScriptedLlm([http_error(503), "ok"]), retrying(budget), calls)
    assert budget.log == [("allow", KEY, False), ("record", KEY, True), ("allow", KEY, True)]


async def test_one_token_bucket_caps_retries_across_calls() -> None:
    budget = TokenBucketRetryBudget(max_tokens=4)
    attempts = []
    for _ in range(3):
        llm = ScriptedLlm([http_error(503)] * 5)
        with pytest.raises(ModelHTTPError):
            await run(llm, retrying(budget, attempts=5))
        attempts.append(llm.calls)
    assert attempts == [2, 1, 1]
    assert budget.tokens(KEY) == 0.0


async def test_a_shed_first_attempt_fails_fast_without_calling_the_provider() -> None:
    throttle = AdaptiveThrottle(throttle_first_attempts=True, random_source=lambda: 0.0)
    for _ in range(10):
        await throttle.record(KEY, failed=True)
    llm, calls = ScriptedLlm(["never reached"]), LlmCallBudget(100)
    with pytest.raises(CircuitOpenError, match="shed"):
        await run(llm, retrying(throttle), calls)
    assert (llm.calls, calls.count) == (0, 0)


async def test_a_budget_that_raises_is_logged_and_ignored(caplog) -> None:
    class Broken(RecordingBudget):
        async def allow(self, key: str, *, retry: bool) -> bool:
            raise RuntimeError("budget store exploded")

    with caplog.at_level(logging.ERROR, logger="steadyflow.retry"):
        texts = await run(ScriptedLlm([http_error(503), "ok"]), retrying(Broken()))
    assert texts == ["ok"]
    assert "allowing the attempt" in caplog.text
