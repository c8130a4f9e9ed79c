"""``InvocationRecord.copy``: every field copied, the journal not shared."""

from __future__ import annotations

import dataclasses

from steadyflow.sessions import InvocationRecord, InvocationStatus
from steadyflow.sessions.invocations import InvocationOwner
from steadyflow.trace_record import InvocationTrace


def a_record_with_no_default_left() -> InvocationRecord:
    values = {
        "id": "e-1",
        "app_name": "app",
        "user_id": "u",
        "session_id": "s",
        "agent": "a",
        "status": InvocationStatus.WAITING,
        "started_at": 1.0,
        "ended_at": 2.0,
        "llm_calls": 3,
        "max_llm_calls": 4,
        "error_type": "E",
        "error_message": "m",
        "trace": InvocationTrace(invocation_id="e-1", status="ok"),
        "owner": InvocationOwner("h", 5, 6.0),
        "lease_expires_at": 7.0,
        "resume_count": 8,
        "journal": {"c-1": {"state": "started"}},
        "revision": 9,
        "usage": {"input_tokens": 10, "cost": "0.5"},
    }
    assert set(values) == {f.name for f in dataclasses.fields(InvocationRecord)}
    return InvocationRecord(**values)


def test_a_copy_has_every_field_of_the_original():
    record = a_record_with_no_default_left()
    assert dataclasses.asdict(record.copy()) == dataclasses.asdict(record)


def test_a_copys_journal_changes_without_touching_the_original():
    record = a_record_with_no_default_left()
    copied = record.copy()
    copied.journal["c-2"] = {"state": "done"}
    assert list(record.journal) == ["c-1"]


def test_a_copys_journal_entries_change_without_touching_the_original():
    record = a_record_with_no_default_left()
    record.copy().journal["c-1"]["resumed"] = True  # what a resume marks in its copy
    assert record.journal["c-1"] == {"state": "started"}
