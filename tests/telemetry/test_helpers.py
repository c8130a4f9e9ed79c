"""The telemetry helpers cost nothing for spans that are not recorded."""

from opentelemetry import trace
from opentelemetry.trace import INVALID_SPAN, NonRecordingSpan

from steadyflow import telemetry


def test_child_of_an_invalid_span_is_the_invalid_span() -> None:
    assert telemetry.start_span("child", parent=INVALID_SPAN) is INVALID_SPAN


def test_activating_an_invalid_span_leaves_the_context_alone() -> None:
    before = trace.get_current_span()
    with telemetry.activate(INVALID_SPAN):
        assert trace.get_current_span() is before


def test_record_error_ignores_non_recording_spans() -> None:
    span = NonRecordingSpan(INVALID_SPAN.get_span_context())
    telemetry.record_error(span, ValueError("x"), exception_event=True)
    assert not span.is_recording()
