"""Metrics of model calls: attempts, retries, waits, durations, tokens, budget stops."""

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from tests.support.otel import metric_points, metric_reader

from steadyflow import LlmAgent, RetryConfig, RunConfig
from steadyflow.testing import FakeClock, ScriptedLlm, fake_clock, http_error, run_turn

RETRY3 = RunConfig(retry_config=RetryConfig(max_attempts=3, jitter_ratio=0.0))
BASE = {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": "scripted",
    "gen_ai.request.model": "scripted-model",
}


def key(**extra: object) -> frozenset:
    return frozenset({**BASE, **extra}.items())


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with fake_clock() as testing_clock:
        yield testing_clock


@pytest.fixture
def reader() -> InMemoryMetricReader:
    return metric_reader()


def delta(reader: InMemoryMetricReader, name: str, before: dict) -> dict:
    """What ``name`` gained since ``before`` (the reader is cumulative, shared by tests)."""
    after = metric_points(reader, name)
    changes = {}
    for point, value in after.items():
        old = before.get(point)
        if isinstance(value, tuple):
            old = old or (0, 0.0)
            if value != old:
                changes[point] = (value[0] - old[0], round(value[1] - old[1], 9))
        elif value != (old or 0):
            changes[point] = value - (old or 0)
    return changes


async def run_and_measure(reader, names, agent, config=RETRY3):
    before = {name: metric_points(reader, name) for name in names}
    result = await run_turn(agent, "hi", run_config=config)
    return result, {name: delta(reader, name, before[name]) for name in names}


async def test_attempts_and_retries_are_counted_by_error_type(reader, clock) -> None:
    model = ScriptedLlm([http_error(503), http_error(429, retry_after=2.0), "ok"])
    _, seen = await run_and_measure(
        reader,
        ["steadyflow.llm.attempts", "steadyflow.llm.retries", "steadyflow.llm.retry.delay"],
        LlmAgent(name="a", model=model),
    )
    assert seen["steadyflow.llm.attempts"] == {
        key(**{"error.type": "ModelHTTPError"}): 2,
        key(): 1,
    }
    assert seen["steadyflow.llm.retries"] == {key(**{"error.type": "ModelHTTPError"}): 2}
    assert seen["steadyflow.llm.retry.delay"] == {
        key(**{"error.type": "ModelHTTPError", "steadyflow.llm.retry.from_retry_after": False}): (
            1,
            0.5,
        ),
        key(**{"error.type": "ModelHTTPError", "steadyflow.llm.retry.from_retry_after": True}): (
            1,
            2.0,
        ),
    }


async def test_call_duration_and_tokens_are_recorded_per_call(reader, clock) -> None:
    _, seen = await run_and_measure(
        reader,
        ["gen_ai.client.operation.duration", "gen_ai.client.token.usage"],
        LlmAgent(name="a", model=ScriptedLlm(["a reasonably long answer"])),
    )
    ((duration_key, (calls, _)),) = seen["gen_ai.client.operation.duration"].items()
    assert (duration_key, calls) == (key(), 1)
    tokens = seen["gen_ai.client.token.usage"]
    assert set(tokens) == {
        key(**{"gen_ai.token.type": "input"}),
        key(**{"gen_ai.token.type": "output"}),
    }
    assert tokens[key(**{"gen_ai.token.type": "output"})] == (1, 6.0)


async def test_a_failed_call_records_its_duration_with_the_error_type(reader, clock) -> None:
    _, seen = await run_and_measure(
        reader,
        ["gen_ai.client.operation.duration"],
        LlmAgent(name="a", model=ScriptedLlm([http_error(400)])),
    )
    assert list(seen["gen_ai.client.operation.duration"]) == [
        key(**{"error.type": "ModelHTTPError"})
    ]


async def test_a_spent_budget_counts_one_exhaustion_for_the_agent(reader, clock) -> None:
    config = RunConfig(max_llm_calls=1, retry_config=RetryConfig(max_attempts=3))
    result, seen = await run_and_measure(
        reader,
        ["steadyflow.llm.budget.exhaustions"],
        LlmAgent(name="a", model=ScriptedLlm([http_error(503), "never"])),
        config,
    )
    assert result.error is not None
    assert seen["steadyflow.llm.budget.exhaustions"] == {
        frozenset({"gen_ai.agent.name": "a"}.items()): 1
    }
