"""The retry loop with a circuit breaker: fail fast while open, never retry CircuitOpenError."""

import logging

import pytest

from steadyflow.context import LlmCallBudget
from steadyflow.errors import CircuitOpenError, ModelHTTPError
from steadyflow.models import BaseLlm, LlmRequest
from steadyflow.retry import CircuitBreaker, CircuitState, RetryConfig
from steadyflow.retry._executor import generate_with_retries
from steadyflow.testing import FakeClock, ScriptedLlm, http_error
from steadyflow.types import Content

KEY = "scripted:scripted-model"


async def run(llm: BaseLlm, config: RetryConfig, calls: LlmCallBudget, clock: FakeClock):
    responses = generate_with_retries(
        llm,
        LlmRequest(contents=[Content.from_text("hi", role="user")]),
        stream=False,
        config=config,
        before_attempt=calls.increment,
        clock=clock,
    )
    return [r.text async for r in responses]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def breaker(clock) -> CircuitBreaker:
    return CircuitBreaker(minimum_calls=2, open_for=30.0, half_open_probes=1, clock=clock)


def config(breaker: CircuitBreaker, attempts: int = 1) -> RetryConfig:
    return RetryConfig(max_attempts=attempts, jitter_ratio=0.0, circuit_breaker=breaker)


async def open_circuit(breaker: CircuitBreaker) -> None:
    for _ in range(2):
        await breaker.acquire(KEY)
        await breaker.record(KEY, failed=True)


def test_a_breaker_that_is_not_one_is_refused() -> None:
    with pytest.raises(ValueError, match="circuit_breaker must be a CircuitBreaker"):
        RetryConfig(circuit_breaker=0.5)


async def test_an_open_circuit_fails_fast_without_an_attempt_or_a_charge(breaker, clock) -> None:
    await open_circuit(breaker)
    llm, calls = ScriptedLlm(["never reached"]), LlmCallBudget(10)
    with pytest.raises(CircuitOpenError) as raised:
        await run(llm, config(breaker, attempts=5), calls, clock)
    assert (llm.calls, calls.count, clock.sleeps) == (0, 0, [])
    assert raised.value.retry_after == 30.0


async def test_failed_calls_open_the_circuit_for_later_calls(breaker, clock) -> None:
    for _ in range(2):
        with pytest.raises(ModelHTTPError):
            await run(ScriptedLlm([http_error(503)]), config(breaker), LlmCallBudget(10), clock)
    assert breaker.state(KEY) is CircuitState.OPEN


async def test_a_circuit_opening_mid_call_stops_retries_with_the_providers_error(
    breaker, clock, caplog
) -> None:
    llm = ScriptedLlm([http_error(503), http_error(503), "never reached"])
    with caplog.at_level(logging.INFO, logger="steadyflow.retry"):
        with pytest.raises(ModelHTTPError):
            await run(llm, config(breaker, attempts=5), LlmCallBudget(10), clock)
    assert llm.calls == 2
    assert "reason=the circuit breaker is open" in caplog.text


async def test_a_successful_probe_closes_the_circuit(breaker, clock) -> None:
    await open_circuit(breaker)
    clock.advance(30.0)
    texts = await run(ScriptedLlm(["back"]), config(breaker), LlmCallBudget(10), clock)
    assert texts == ["back"]
    assert breaker.state(KEY) is CircuitState.CLOSED


async def test_circuits_are_per_provider_and_model(breaker, clock) -> None:
    await open_circuit(breaker)
    other = ScriptedLlm(["fine"], model="other-model")
    assert await run(other, config(breaker), LlmCallBudget(10), clock) == ["fine"]
