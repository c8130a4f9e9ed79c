"""Confirmation across processes: one process pauses and exits, another answers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from steadyflow.sessions import InvocationStatus
from steadyflow.sessions.sql import SqlSessionService

WORKER = Path(__file__).parent / "workers" / "confirm_turn.py"


def phase(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, str(WORKER), *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result: dict = json.loads(done.stdout.strip().splitlines()[-1])
    return result


async def record_of(db: Path):
    service = SqlSessionService(f"sqlite+aiosqlite:///{db}")
    try:
        (record,) = await service.list_invocations(app_name="app", user_id="u", session_id="s")
        session = await service.get_session(app_name="app", user_id="u", session_id="s")
    finally:
        await service.close()
    assert session is not None
    return record, session


@pytest.mark.parametrize(("answer", "runs", "text"), [("yes", 1, "Sent."), ("no", 0, "Not sent.")])
async def test_a_pause_in_one_process_is_answered_in_another(tmp_path, answer, runs, text):
    db, effects = tmp_path / "sessions.db", tmp_path / "effects.txt"
    effects.touch()

    asked = phase(str(db), str(effects), "ask")  # process A pauses and exits

    waiting, _ = await record_of(db)
    assert waiting.status is InvocationStatus.WAITING and waiting.owner is None
    assert effects.read_text() == ""

    answered = phase(str(db), str(effects), "answer", asked["request_id"], answer)  # process B

    assert effects.read_text().splitlines() == ["transfer 5"] * runs
    assert answered == {"text": text, "invocation_id": asked["invocation_id"]}
    record, session = await record_of(db)
    assert record.id == asked["invocation_id"]
    assert (record.status, record.resume_count) == (InvocationStatus.COMPLETED, 1)
    assert [e.author for e in session.events] == ["user", "bank", "bank", "user", "bank", "bank"]
