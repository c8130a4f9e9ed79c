"""Each invocation's own trace, stored with the session.

Read it back without an OpenTelemetry backend::

    for trace in traces_in(session.events):
        print(trace.invocation_id, trace.status, trace.attempts, trace.budget_used)

The runner appends one event per invocation, authored by ``"steadyflow"``,
with no content and the trace, as JSON text, under
``custom_metadata["steadyflow.trace"]`` (also when the invocation ends with
an error). The event is stored like any
other, is never sent to a model, and is not yielded by ``Runner.run_async``.
When another writer appended meanwhile, the append is repeated on a freshly
loaded copy (``append_trace``): a finished turn keeps its trace.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..events import Event
from ._recorder import InvocationRecorder, ModelCallRecorder, ToolCallScope
from ._schema import (
    TRACE_AUTHOR,
    TRACE_METADATA_KEY,
    TRACE_VERSION,
    AttemptTrace,
    InvocationTrace,
    StepTrace,
    ToolTrace,
    TraceFormatError,
)
from ._store import TRACE_APPEND_ATTEMPTS, append_trace

__all__ = [
    "TRACE_APPEND_ATTEMPTS",
    "TRACE_AUTHOR",
    "TRACE_METADATA_KEY",
    "TRACE_VERSION",
    "AttemptTrace",
    "InvocationRecorder",
    "InvocationTrace",
    "ModelCallRecorder",
    "StepTrace",
    "ToolCallScope",
    "ToolTrace",
    "TraceFormatError",
    "append_trace",
    "is_trace_event",
    "trace_event",
    "trace_of",
    "traces_in",
]


def trace_event(trace: InvocationTrace) -> Event:
    """The event that stores ``trace`` in the session."""
    event = Event(invocation_id=trace.invocation_id, author=TRACE_AUTHOR)
    # Assigned, not passed: validating the metadata would copy the dict and
    # walk the text, once per invocation, for a value built right here.
    event.custom_metadata = {TRACE_METADATA_KEY: trace.to_json()}
    return event


def is_trace_event(event: Event) -> bool:
    """Whether ``event`` is a stored invocation trace."""
    return (
        event.author == TRACE_AUTHOR
        and event.content is None
        and event.custom_metadata is not None
        and TRACE_METADATA_KEY in event.custom_metadata
    )


def trace_of(event: Event) -> InvocationTrace | None:
    """The trace ``event`` stores, or None when it is not a trace event.

    Raises:
        TraceFormatError: the event holds a trace this version cannot read.
    """
    if not is_trace_event(event):
        return None
    assert event.custom_metadata is not None
    return InvocationTrace.from_stored(event.custom_metadata[TRACE_METADATA_KEY])


def traces_in(events: Iterable[Event]) -> list[InvocationTrace]:
    """The traces among ``events``, oldest first."""
    found: list[InvocationTrace] = []
    for event in events:
        trace = trace_of(event)
        if trace is not None:
            found.append(trace)
    return found
