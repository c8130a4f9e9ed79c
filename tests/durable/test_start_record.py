"""``start_record``: a new record has every field its constructor would give it."""

from __future__ import annotations

import dataclasses

from steadyflow.durable import current_owner, start_record
from steadyflow.sessions import InvocationRecord, InvocationStatus


def test_a_started_record_is_the_constructed_one_with_its_own_journal_and_usage():
    values = {
        "invocation_id": "e-1",
        "app_name": "app",
        "user_id": "u",
        "session_id": "s",
        "agent": "a",
        "max_llm_calls": 7,
        "now": 100.0,
        "lease_seconds": 30.0,
    }
    first, second = start_record(**values), start_record(**values)
    expected = InvocationRecord(
        id="e-1",
        app_name="app",
        user_id="u",
        session_id="s",
        agent="a",
        status=InvocationStatus.RUNNING,
        started_at=100.0,
        max_llm_calls=7,
        owner=current_owner(),
        lease_expires_at=130.0,
    )
    assert dataclasses.asdict(first) == dataclasses.asdict(expected)
    first.journal["c-1"] = {"state": "started"}
    first.usage["input_tokens"] = 3
    assert (second.journal, second.usage) == ({}, {})
