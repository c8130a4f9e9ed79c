"""UsageLimits: every attempt counted, the next one refused before it is sent."""

from __future__ import annotations

from decimal import Decimal

import pytest

from steadyflow import LlmAgent, RetryConfig, RunConfig
from steadyflow.errors import (
    ConfigurationError,
    ModelConnectionError,
    UnknownPriceError,
    UsageLimitExceededError,
)
from steadyflow.models import FallbackLlm, LlmRequest
from steadyflow.testing import ScriptedLlm, Stream
from steadyflow.types import Content, FunctionDeclaration, GenerateContentConfig
from steadyflow.usage import ModelPrice, UsageLimits
from steadyflow.usage._estimate import estimate_request

from .helpers import answer, noop, records, start, tool_call, turn, usage

PRICE = {
    "scripted-model": ModelPrice(input=Decimal("2"), output=Decimal("10"), max_output_tokens=1000)
}
AT_MOST_5 = GenerateContentConfig(max_output_tokens=5)


def limited(**limits) -> RunConfig:
    return RunConfig(usage_limits=UsageLimits(**limits), prices=PRICE)


async def test_an_attempt_whose_input_does_not_fit_is_never_sent() -> None:
    model = ScriptedLlm(["never"])
    runner, sid = await start(LlmAgent(name="a", model=model))
    with pytest.raises(UsageLimitExceededError) as caught:
        await turn(runner, sid, limited(max_input_tokens=3), message="a long question " * 10)
    assert model.requests == []
    assert caught.value.limit == "max_input_tokens" and caught.value.used == 0
    message = str(caught.value)
    assert "max_input_tokens (3 tokens) would be exceeded: 0 tokens used" in message
    assert "attempt 1 of the call to scripted:scripted-model (agent 'a', step 1)" in message
    (record,) = await records(runner, sid)
    assert record.llm_calls == 0  # refused attempts are not counted: nothing was sent
    assert record.error_type == "UsageLimitExceededError"


async def test_usage_of_earlier_steps_counts_and_the_step_that_would_cross_is_refused() -> None:
    model = ScriptedLlm([tool_call("noop", 400, 50), "never"])
    agent = LlmAgent(name="a", model=model, tools=[noop], generate_content_config=AT_MOST_5)
    runner, sid = await start(agent)
    with pytest.raises(UsageLimitExceededError) as caught:
        await turn(runner, sid, limited(max_total_tokens=460))
    assert len(model.requests) == 1
    assert (caught.value.limit, caught.value.used) == ("max_total_tokens", 450)
    assert "step 2" in str(caught.value)


async def test_the_request_max_output_tokens_is_reserved_before_the_attempt() -> None:
    config = GenerateContentConfig(max_output_tokens=500)
    model = ScriptedLlm([answer("fine", 10, 5)])
    agent = LlmAgent(name="a", model=model, generate_content_config=config)
    runner, sid = await start(agent)
    with pytest.raises(UsageLimitExceededError) as caught:
        await turn(runner, sid, limited(max_output_tokens=499))
    assert model.requests == [] and caught.value.needed == 500
    events = await turn(runner, sid, limited(max_output_tokens=500))
    assert [e.text for e in events] == ["fine"]


async def test_allowing_overshoot_a_limit_is_crossed_by_one_response_at_most() -> None:
    model = ScriptedLlm([tool_call("noop", 10, 900), "never"])
    runner, sid = await start(LlmAgent(name="a", model=model, tools=[noop]))
    with pytest.raises(UsageLimitExceededError) as caught:
        await turn(runner, sid, limited(max_output_tokens=100, allow_overshoot=True))
    assert len(model.requests) == 1  # the first answer overshot; nothing more was sent
    assert caught.value.used == 900


async def test_a_failed_attempt_that_reported_usage_counts() -> None:
    cut = ModelConnectionError("stream cut", provider="scripted", usage=usage(300, 2000))
    model = ScriptedLlm([cut, "never"])
    runner, sid = await start(LlmAgent(name="a", model=model))
    config = RunConfig(
        usage_limits=UsageLimits(max_output_tokens=2000),
        retry_config=RetryConfig(max_attempts=3, initial_backoff=0, jitter_ratio=0),
        prices=PRICE,
    )
    with pytest.raises(UsageLimitExceededError) as caught:
        await turn(runner, sid, config)
    assert len(model.requests) == 1 and caught.value.used == 2000
    (record,) = await records(runner, sid)
    (attempt,) = record.trace.steps[0].attempts
    assert (attempt.status, attempt.input_tokens, attempt.output_tokens) == ("error", 300, 2000)
    assert attempt.cost == Decimal("0.0206")  # 300 * $2 + 2000 * $10 per million
    assert record.usage["output_tokens"] == 2000


async def test_a_streamed_attempt_cut_after_its_usage_arrived_counts() -> None:
    cut = ModelConnectionError("cut", provider="scripted", usage=usage(100, 40))
    model = ScriptedLlm([Stream(["a", "b"], error=cut, error_after=2)])
    runner, sid = await start(LlmAgent(name="a", model=model))
    with pytest.raises(ModelConnectionError):
        await turn(runner, sid, RunConfig(prices=PRICE))
    (record,) = await records(runner, sid)
    assert (record.usage["input_tokens"], record.usage["output_tokens"]) == (100, 40)


async def test_the_limit_error_is_never_retried_nor_handed_to_error_callbacks() -> None:
    seen: list = []
    model = ScriptedLlm(["never"])
    agent = LlmAgent(
        name="a", model=model, on_model_error_callback=lambda **kw: seen.append(kw["error"])
    )
    runner, sid = await start(agent)
    config = RunConfig(
        usage_limits=UsageLimits(max_input_tokens=1),
        retry_config=RetryConfig(max_attempts=5, initial_backoff=0),
    )
    with pytest.raises(UsageLimitExceededError):
        await turn(runner, sid, config)
    assert seen == [] and model.requests == []


async def test_a_fallback_model_is_not_tried_when_a_usage_limit_refuses() -> None:
    primary, spare = ScriptedLlm(["never"]), ScriptedLlm(["never"], model="spare")
    runner, sid = await start(LlmAgent(name="a", model=FallbackLlm([primary, spare])))
    with pytest.raises(UsageLimitExceededError):
        await turn(runner, sid, RunConfig(usage_limits=UsageLimits(max_input_tokens=1)))
    assert primary.requests == [] and spare.requests == []


async def test_a_cost_limit_on_a_model_with_no_known_price_fails_before_the_first_call() -> None:
    model = ScriptedLlm(["never"], model="our-private-llm")
    runner, sid = await start(LlmAgent(name="a", model=model))
    with pytest.raises(UnknownPriceError, match="no price is known for model 'our-private-llm'"):
        await turn(runner, sid, RunConfig(usage_limits=UsageLimits(max_cost=Decimal("1"))))
    assert model.requests == []


async def test_the_cost_of_each_attempt_is_priced_from_the_exact_categories() -> None:
    price = ModelPrice(
        input=Decimal("3"),
        output=Decimal("15"),
        cached_input=Decimal("0.3"),
        cache_write=Decimal("3.75"),
        reasoning=Decimal("15"),
    )
    # 1000 input of which 600 cached and 100 written; 500 output of which 200 reasoning.
    response = answer(
        "ok", 1000, 500, cached_input_tokens=600, cache_write_tokens=100, reasoning_tokens=200
    )
    runner, sid = await start(LlmAgent(name="a", model=ScriptedLlm([response])))
    await turn(runner, sid, RunConfig(prices={"scripted:scripted-model": price}))
    (record,) = await records(runner, sid)
    expected = (300 * 3 + 600 * Decimal("0.3") + 100 * Decimal("3.75") + 500 * 15) / 10**6
    assert record.trace.cost == record.trace.steps[0].cost == expected
    assert record.usage["cost"] == str(expected)


async def test_a_cost_limit_refuses_the_attempt_whose_estimate_costs_too_much() -> None:
    model = ScriptedLlm([tool_call("noop", 1000, 100), "never"])
    config = GenerateContentConfig(max_output_tokens=100)
    runner, sid = await start(
        LlmAgent(name="a", model=model, tools=[noop], generate_content_config=config)
    )
    # The first call costs $0.003; a second one's input estimate alone does not fit.
    with pytest.raises(UsageLimitExceededError) as caught:
        await turn(runner, sid, limited(max_cost=Decimal("0.003")))
    assert len(model.requests) == 1
    error = caught.value
    assert error.limit == "max_cost" and error.unit == "usd" and error.window is None
    assert (error.maximum, error.used) == (Decimal("0.003"), Decimal("0.003"))
    assert str(error).startswith("max_cost ($0.003) would be exceeded: $0.003 used, and attempt")


def test_the_estimate_counts_messages_instruction_and_tools() -> None:
    tool = FunctionDeclaration(name="lookup", description="Find an order.")
    config = GenerateContentConfig(system_instruction="Be brief.", tools=[tool])
    bare = LlmRequest(contents=[Content.from_text("hello there")])
    full = LlmRequest(contents=[Content.from_text("hello there")], config=config)
    assert estimate_request(bare).input_tokens == 4 + 3  # framing + 11 characters
    assert estimate_request(full).input_tokens > estimate_request(bare).input_tokens + 6
    assert estimate_request(full).output_tokens == 0


def test_limits_are_validated_and_money_is_decimal() -> None:
    assert UsageLimits(max_cost=0.1).max_cost == Decimal("0.1")
    with pytest.raises(ConfigurationError, match="max_total_tokens must be an int >= 0"):
        UsageLimits(max_total_tokens=-1)
    with pytest.raises(ConfigurationError, match="max_cost must be a finite amount"):
        UsageLimits(max_cost=float("inf"))
    with pytest.raises(ValueError, match="usage_limits must be a UsageLimits"):
        RunConfig(usage_limits={"max_cost": 1})  # type: ignore[arg-type]


async def test_without_a_limit_no_attempt_is_estimated(monkeypatch):
    """The estimate reads the whole history: made only when a limit needs it."""
    from steadyflow.usage import _call

    def refuse(request):
        raise AssertionError("estimated without a limit")

    monkeypatch.setattr(_call, "estimate_request", refuse)
    from steadyflow import InMemoryRunner, LlmAgent
    from steadyflow.testing import ScriptedLlm

    runner = InMemoryRunner(LlmAgent(name="a", model=ScriptedLlm(["hi"])))
    session = await runner.create_session(user_id="u")
    turn = runner.run_async(user_id="u", session_id=session.id, new_message="x")
    events = [e async for e in turn]
    assert events[-1].text == "hi"
