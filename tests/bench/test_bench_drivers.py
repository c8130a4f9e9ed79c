from __future__ import annotations

from typing import Any

import pytest
from bench.common import percentile, slope
from bench.drivers import (
    ScenarioShapeError,
    Setup,
    TurnStats,
    concurrency,
    history,
    per_call,
    streaming,
)
from bench.scenarios import FULL, memory_jobs


class _Adapter:
    """Reports whatever turn shape it is told to, with no framework behind it."""

    def __init__(self, calls: int | None = None, reason: str | None = None) -> None:
        self.calls = calls
        self.reason = reason
        self.setups: list[Setup] = []

    def supports(self, setup: Setup) -> str | None:
        return self.reason

    def note(self, setup: Setup) -> str:
        return "fake"

    async def conversation(self, setup: Setup) -> Setup:
        self.setups.append(setup)
        return setup

    async def turn(self, conversation: Any) -> TurnStats:
        calls = self.calls if self.calls is not None else conversation.model_calls
        return TurnStats(model_calls=calls, chunk_events=conversation.stream_chunks)

    async def close(self) -> None:
        return None


def test_percentile_interpolates_between_samples():
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5


def test_slope_of_a_line_is_its_gradient():
    assert slope([1.0, 2.0, 4.0], [3.0, 5.0, 9.0]) == pytest.approx(2.0)


def test_slope_needs_two_points():
    with pytest.raises(ValueError, match="two or more"):
        slope([1.0], [1.0])


async def test_per_call_times_one_fresh_conversation_per_turn():
    adapter = _Adapter()

    result = await per_call(adapter, tools=True, turns=5, warmup=2)

    assert len(adapter.setups) == 7
    assert result["per_call_s"]["cpu"]["n"] == 5


async def test_per_call_stops_when_the_turn_made_the_wrong_number_of_model_calls():
    with pytest.raises(ScenarioShapeError, match="1 model calls, the scenario needs 2"):
        await per_call(_Adapter(calls=1), tools=True, turns=3, warmup=0)


async def test_history_reports_each_size_and_the_first_cold_turn():
    result = await history(_Adapter(), store="memory", sizes=[0, 10], reps=3)

    assert list(result["turn_s"]) == ["0", "10"]
    assert result["turn_s"]["10"]["cpu"]["n"] == 3
    assert "first_cpu" in result["turn_s"]["0"]


async def test_concurrency_times_each_cpu_round_on_fresh_conversations():
    adapter = _Adapter()
    result = await concurrency(adapter, runs=5, latency=0.0, tracer="tracemalloc", cpu_rounds=3)

    assert len(result["cpu_s_rounds"]) == 3
    assert result["cpu_s"] == sorted(result["cpu_s_rounds"])[1]
    assert len(adapter.setups) == 1 + 3 * 5  # the warm-up turn, then 5 per round


def test_smaller_concurrency_sizes_run_more_cpu_rounds():
    rounds = {
        (job["params"]["runs"], job["params"]["tracer"]): job["params"]["cpu_rounds"]
        for job in memory_jobs(FULL)
    }

    assert rounds[(100, "rss")] == 10 and rounds[(1000, "rss")] == 1
    assert rounds[(100, "tracemalloc")] == 1


async def test_history_is_skipped_with_the_sides_reason():
    result = await history(_Adapter(reason="no SQLite"), store="sqlite", sizes=[0], reps=1)

    assert result == {"skipped": "no SQLite"}


async def test_streaming_fits_a_per_chunk_slope_over_the_chunk_counts():
    result = await streaming(_Adapter(), chunk_counts=[2, 4, 8], reps=2, retries=False)

    assert set(result["per_chunk_s"]) == {"cpu", "wall"}
    assert list(result["turn_s"]) == ["2", "4", "8"]
