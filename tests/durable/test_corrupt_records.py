"""One corrupted invocation record never stops the recovery of the others.

The sweep (``resume_expired``: ``steadyflow resume --all-expired`` and the
server's start-up) skips a record it cannot read or trust, reports it as
``corrupt`` with what is wrong, and resumes the rest; reading that record
alone raises ``CorruptRecordError`` naming it.
"""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import pytest

from steadyflow import LlmAgent, Runner
from steadyflow.durable import SweepResult, resume_expired
from steadyflow.errors import CorruptRecordError
from steadyflow.events import Event
from steadyflow.sessions import (
    BaseSessionService,
    InMemorySessionService,
    InvocationOwner,
    InvocationRecord,
)
from steadyflow.sessions.sql import SqlSessionService
from steadyflow.testing import ScriptedLlm
from steadyflow.types import Content
from tests.durable.test_resume import dead_pid


async def crashed_sessions(service: BaseSessionService, names: list[str]) -> dict[str, str]:
    """One session per name whose turn a killed process left running; name -> session id."""
    ids = {}
    for n, name in enumerate(names):
        session = await service.create_session(app_name="app", user_id=f"user-{name}")
        record = InvocationRecord(
            id=f"e-{name}",
            app_name="app",
            user_id=session.user_id,
            session_id=session.id,
            agent="a",
            started_at=float(n),
            max_llm_calls=10,
            owner=InvocationOwner(socket.gethostname(), dead_pid(), 0.0),
            lease_expires_at=9e18,
        )
        message = Event(invocation_id=record.id, author="user", content=Content.from_text("hi"))
        await service.append_event_and_record(session, message, record)
        ids[name] = session.id
    return ids


async def sweep(service: BaseSessionService) -> list[tuple[str, SweepResult, str]]:
    model = ScriptedLlm(["hello", "hello"])
    runner = Runner(app_name="app", agent=LlmAgent(name="a", model=model), session_service=service)
    outcomes = [(o.record.id, o.result, o.detail) async for o in resume_expired(runner)]
    assert len(model.requests) == 2  # the two healthy ones, nothing for the corrupt one
    return outcomes


CORRUPTIONS = {
    "journal not JSON": ("journal = 'not json {'", "journal"),
    "journal a list": ("journal = '[1, 2]'", "journal is a list"),
    "usage a string": ("usage = '\"lots\"'", "usage is a str"),
    "negative llm_calls": ("llm_calls = -1000", "llm_calls is -1000"),
}


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
async def test_the_sweep_skips_a_corrupt_sqlite_row_and_resumes_the_rest(
    corruption: str, tmp_path: Path
):
    path = tmp_path / "sessions.db"
    service = SqlSessionService(f"sqlite+aiosqlite:///{path}")
    try:
        ids = await crashed_sessions(service, ["a", "bad", "c"])
        assignment, named = CORRUPTIONS[corruption]
        with sqlite3.connect(path) as db:
            db.execute(f"UPDATE steadyflow_invocations SET {assignment} WHERE id = 'e-bad'")

        outcomes = await sweep(service)

        assert [(i, r) for i, r, _ in outcomes] == [
            ("e-bad", SweepResult.CORRUPT),
            ("e-a", SweepResult.RESUMED),
            ("e-c", SweepResult.RESUMED),
        ]
        assert named in outcomes[0][2]
        with pytest.raises(CorruptRecordError, match="e-bad") as raised:
            await service.list_invocations(
                app_name="app", user_id="user-bad", session_id=ids["bad"]
            )
        assert raised.value.session_id == ids["bad"]
    finally:
        await service.close()


async def test_the_sweep_skips_a_record_with_a_negative_count_in_memory():
    service = InMemorySessionService()
    ids = await crashed_sessions(service, ["a", "bad", "c"])
    (record,) = await service.list_invocations(
        app_name="app", user_id="user-bad", session_id=ids["bad"]
    )
    record.llm_calls = -1000
    await service.update_invocation(record)

    outcomes = await sweep(service)

    assert outcomes[0] == (
        "e-bad",
        SweepResult.CORRUPT,
        "llm_calls is -1000, not a count (an int >= 0)",
    )
    assert [(i, r) for i, r, _ in outcomes[1:]] == [
        ("e-a", SweepResult.RESUMED),
        ("e-c", SweepResult.RESUMED),
    ]
    runner = Runner(
        app_name="app", agent=LlmAgent(name="a", model=ScriptedLlm([])), session_service=service
    )
    with pytest.raises(CorruptRecordError, match="llm_calls is -1000"):
        async for _ in runner.resume_async(user_id="user-bad", session_id=ids["bad"]):
            pass
    found = await service.find_unfinished_invocations(app_name="app")
    assert [r.status for r in found.records] == []  # the healthy ones completed
    assert [(e.invocation_id, e.session_id) for e in found.corrupt] == [("e-bad", ids["bad"])]
