"""The trace record: each invocation's own account of its steps and attempts.

Stored in the invocation's record in the session store (not exported
anywhere; the OpenTelemetry spans and metrics are ``steadyflow.telemetry``).
Read it back without an OpenTelemetry backend::

    for record in await service.list_invocations(
        app_name="app", user_id="u", session_id=session.id
    ):
        trace = record.trace
        print(record.id, record.status, trace.attempts, trace.budget_used)

The runner stores the trace in the invocation's record when the invocation
ends (also with an error), never in ``session.events``: no model sees it
and code that counts or renders a session's events sees no bookkeeping.

Sessions written before records existed ended each invocation with an event
authored ``"steadyflow"`` holding the trace under
``custom_metadata["steadyflow.trace"]``; the SQL store moves such events
into records when it opens the database (``trace_of`` reads them).
"""

from __future__ import annotations

from ..errors import TraceFormatError
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
)

__all__ = [
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
    "is_trace_event",
    "trace_of",
]


def is_trace_event(event: Event) -> bool:
    """Whether ``event`` is a trace event of the old format (see the module docstring)."""
    return (
        event.author == TRACE_AUTHOR
        and event.content is None
        and event.custom_metadata is not None
        and TRACE_METADATA_KEY in event.custom_metadata
    )


def trace_of(event: Event) -> InvocationTrace | None:
    """The trace an old-format trace event stores, or None when it is not one.

    Raises:
        TraceFormatError: the event holds a trace this version cannot read.
    """
    if not is_trace_event(event):
        return None
    assert event.custom_metadata is not None
    return InvocationTrace.from_stored(event.custom_metadata[TRACE_METADATA_KEY])
