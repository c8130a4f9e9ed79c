"""The stored trace's schema: compact, round-trips, rejects what it cannot read."""

import pytest

from steadyflow.events import Event
from steadyflow.trace_record import (
    AttemptTrace,
    InvocationRecorder,
    InvocationTrace,
    StepTrace,
    TraceFormatError,
    trace_of,
)


def sample() -> InvocationTrace:
    step = StepTrace(number=1, agent="a", start=0.0, end=1.5, model="m")
    step.attempts.append(AttemptTrace(number=1, start=0.0, end=0.1, status="error"))
    step.attempts.append(AttemptTrace(number=2, start=1.1, end=1.4, delay=1.0, status="ok"))
    return InvocationTrace(invocation_id="e-1", started_at=100.0, status="ok", steps=[step])


def test_a_trace_round_trips_through_its_dict() -> None:
    assert InvocationTrace.from_dict(sample().to_dict()) == sample()


def test_the_stored_form_drops_empty_fields() -> None:
    attempt = sample().to_dict()["steps"][0]["attempts"][0]
    assert "error_type" not in attempt and "retry_after" not in attempt


def test_attempts_and_retries_count_over_all_steps() -> None:
    assert (sample().attempts, sample().retries) == (2, 1)


def test_reading_something_else_names_the_problem() -> None:
    with pytest.raises(TraceFormatError, match="not a steadyflow trace"):
        InvocationTrace.from_dict({"steps": "many"})


def test_a_trace_is_stored_as_compact_json_text() -> None:
    text = sample().to_json()
    assert isinstance(text, str) and '"version":2' in text and "null" not in text
    assert InvocationTrace.from_stored(text) == sample()


def test_a_version_1_trace_stored_as_a_dict_is_still_read() -> None:
    old = {**sample().to_dict(), "version": 1}
    event = Event(author="steadyflow", custom_metadata={"steadyflow.trace": old})
    trace = trace_of(event)
    assert trace is not None and trace.steps == sample().steps


def test_reading_broken_json_text_names_the_problem() -> None:
    with pytest.raises(TraceFormatError, match="not a steadyflow trace"):
        InvocationTrace.from_stored('{"steps": "many"}')


def test_only_old_format_trace_events_have_a_trace() -> None:
    assert trace_of(Event(author="a")) is None
    event = Event(author="steadyflow", custom_metadata={"steadyflow.trace": sample().to_json()})
    assert trace_of(event) == sample()


def test_recorder_times_are_seconds_since_the_invocation_started() -> None:
    ticks = iter([10.0, 10.25, 10.75, 11.0])
    recorder = InvocationRecorder(clock=lambda: next(ticks), wall_clock=lambda: 1700.0)
    step = recorder.start_step("a")
    recorder.end_step(step)
    trace = recorder.finish(
        invocation_id="e-1", agent_name="a", error=None, budget_used=0, budget_limit=5
    )
    assert (trace.started_at, step.start, step.end, trace.duration) == (1700.0, 0.25, 0.75, 1.0)
