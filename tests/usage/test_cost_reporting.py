"""Cost and tokens per attempt and per invocation: stored trace, CLI line, spans, metrics."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import pytest

from steadyflow import LlmAgent, RetryConfig, RunConfig
from steadyflow.cli._timeline import summary_line
from steadyflow.errors import ModelConnectionError, UsageLimitExceededError
from steadyflow.testing import FakeClock, ScriptedLlm, fake_clock, run_turn
from steadyflow.usage import ModelPrice, UsageLimits
from tests.support.otel import metric_points, metric_reader

from .helpers import answer, noop, records, start, tool_call, turn, usage

PRICES = {"scripted-model": ModelPrice(input=Decimal("1"), output=Decimal("4"))}


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with fake_clock() as testing_clock:
        yield testing_clock


async def test_each_attempt_step_and_the_invocation_carry_their_tokens_and_cost(clock) -> None:
    cut = ModelConnectionError("cut", provider="scripted", usage=usage(100, 50))
    model = ScriptedLlm([cut, tool_call("noop", 1000, 100), answer("done", 2000, 10)])
    runner, sid = await start(LlmAgent(name="a", model=model, tools=[noop]))
    config = RunConfig(
        prices=PRICES, retry_config=RetryConfig(max_attempts=2, initial_backoff=0, jitter_ratio=0)
    )
    await turn(runner, sid, config)
    (record,) = await records(runner, sid)
    trace = record.trace
    first, second = trace.steps
    assert [(a.status, a.input_tokens, a.output_tokens, a.cost) for a in first.attempts] == [
        ("error", 100, 50, Decimal("0.0003")),
        ("ok", 1000, 100, Decimal("0.0014")),
    ]
    assert (first.input_tokens, first.output_tokens, first.cost) == (1100, 150, Decimal("0.0017"))
    assert second.cost == Decimal("0.00204")
    assert (trace.input_tokens, trace.output_tokens) == (3100, 160)
    assert trace.cost == Decimal("0.00374") == Decimal(record.usage["cost"])
    assert trace.to_dict()["cost"] == "0.00374"  # exact decimal text in the stored JSON
    line = summary_line(trace)
    assert "3100 in / 160 out tokens · $0.003740 · budget 3/500 attempts" in line


async def test_an_unpriced_model_has_tokens_but_no_cost(clock) -> None:
    runner, sid = await start(LlmAgent(name="a", model=ScriptedLlm([answer("hi", 10, 2)])))
    await turn(runner, sid, RunConfig())
    (record,) = await records(runner, sid)
    assert record.trace.cost is None and record.trace.steps[0].attempts[0].cost is None
    assert "$" not in summary_line(record.trace)
    assert record.usage["unpriced_attempts"] == 1


async def test_the_call_span_carries_usage_and_cost(spans, clock) -> None:
    model = ScriptedLlm([answer("hi", 1000, 500)])
    result = await run_turn(
        LlmAgent(name="a", model=model), "hi", run_config=RunConfig(prices=PRICES)
    )
    assert result.error is None
    (call_span,) = [s for s in spans.get_finished_spans() if s.name == "call_llm scripted-model"]
    attributes = call_span.attributes or {}
    assert attributes["gen_ai.usage.input_tokens"] == 1000
    assert attributes["gen_ai.usage.output_tokens"] == 500
    assert attributes["steadyflow.usage.cost"] == pytest.approx(0.003)


async def test_the_cost_counter_adds_each_priced_attempt(clock) -> None:
    reader = metric_reader()
    key = frozenset(
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "scripted",
            "gen_ai.request.model": "scripted-model",
        }.items()
    )
    before = metric_points(reader, "steadyflow.llm.cost").get(key, 0)
    model = ScriptedLlm([answer("hi", 1000, 500)])
    await run_turn(LlmAgent(name="a", model=model), "hi", run_config=RunConfig(prices=PRICES))
    after = metric_points(reader, "steadyflow.llm.cost")[key]
    assert after - before == pytest.approx(0.003)


async def test_a_usage_limit_stop_is_not_counted_as_a_call_budget_exhaustion(clock) -> None:
    reader = metric_reader()
    name = "steadyflow.llm.budget.exhaustions"
    before = sum(v for v in metric_points(reader, name).values() if isinstance(v, int))
    config = RunConfig(usage_limits=UsageLimits(max_input_tokens=1))
    result = await run_turn(LlmAgent(name="a", model=ScriptedLlm(["x"])), "hi", run_config=config)
    assert isinstance(result.error, UsageLimitExceededError)
    after = sum(v for v in metric_points(reader, name).values() if isinstance(v, int))
    assert after == before
