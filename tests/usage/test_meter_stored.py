"""``UsageMeter.stored``: what each record write keeps follows every counted attempt."""

from __future__ import annotations

from steadyflow.types import UsageMetadata
from steadyflow.usage import UsageLimits, UsageTotals
from steadyflow.usage._meter import UsageMeter


def test_stored_follows_each_counted_attempt() -> None:
    meter = UsageMeter(UsageLimits(max_total_tokens=100))
    assert meter.stored == {"limits": {"max_total_tokens": 100}}
    meter.record("p", "m", UsageMetadata(input_tokens=3, output_tokens=4), None)
    first = meter.stored
    assert (first["input_tokens"], first["output_tokens"], first["attempts"]) == (3, 4, 1)
    meter.record("p", "m", UsageMetadata(input_tokens=5, output_tokens=6), None)
    second = meter.stored
    assert (second["input_tokens"], second["output_tokens"], second["attempts"]) == (8, 10, 2)
    assert second["limits"] == {"max_total_tokens": 100}


def test_an_attempt_without_usage_leaves_stored_as_it_was() -> None:
    meter = UsageMeter()
    meter.record("p", "m", UsageMetadata(input_tokens=1, output_tokens=1), None)
    before = meter.stored
    meter.record("p", "m", None, None)
    assert meter.stored == before


def test_totals_carried_over_by_a_resume_replace_what_was_stored() -> None:
    meter = UsageMeter()
    assert meter.stored == {}
    meter.totals = UsageTotals.from_dict({"input_tokens": 7, "output_tokens": 2, "attempts": 1})
    assert meter.stored["input_tokens"] == 7


def test_whether_attempts_are_checked_follows_the_limits_the_meter_holds() -> None:
    meter = UsageMeter()
    assert not meter.checks_attempts
    meter.limits = UsageLimits(max_total_tokens=10)
    assert meter.checks_attempts


def test_tool_call_limits_alone_check_tool_calls_and_no_model_attempt() -> None:
    meter = UsageMeter(UsageLimits(max_calls_per_tool={"lookup": 1}))
    assert meter.counts_tool_calls and not meter.checks_attempts
    assert meter.admit_tool_call("lookup") is None
    assert meter.stored["tool_calls_by_name"] == {"lookup": 1}
    assert meter.admit_tool_call("lookup") is not None
