"""``steadyflow resume AGENT SESSION_ID`` continues a crashed invocation."""

import asyncio
import json
import socket
import subprocess
import sys

from steadyflow.events import Event
from steadyflow.sessions import InvocationOwner, InvocationRecord, open_session_service
from steadyflow.types import Content
from tests.cli.support import assert_one_line_error, invoke


def crashed_session(db: str) -> str:
    """A session as a killed process leaves it: the user's message, a running record."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()

    async def write() -> str:
        service = open_session_service(db)
        session = await service.create_session(app_name="shop", user_id="user")
        record = InvocationRecord(
            id="e-crashed",
            app_name="shop",
            user_id="user",
            session_id=session.id,
            agent="shop",
            started_at=1.0,
            owner=InvocationOwner(socket.gethostname(), dead.pid, 0.0),
            lease_expires_at=9e18,
        )
        message = Event(invocation_id="e-crashed", author="user", content=Content.from_text("hi"))
        await service.append_event_and_record(session, message, record)
        await service.close()
        return session.id

    return asyncio.run(write())


def test_resume_answers_the_crashed_turn_once(cli, db, agent_file) -> None:
    session_id = crashed_session(db)
    resumed = invoke(
        cli, "resume", agent_file('["resumed answer"]'), session_id, "--session-db", db
    )
    assert resumed.exit_code == 0, resumed.stderr
    assert "shop: resumed answer" in resumed.stdout
    shown = invoke(cli, "invocations", session_id, "--json", "--session-db", db)
    (record,) = json.loads(shown.stdout)
    assert (record["id"], record["status"], record["resume_count"]) == ("e-crashed", "completed", 1)
    again = invoke(cli, "resume", agent_file('["never"]'), session_id, "--session-db", db)
    assert_one_line_error(again, "no unfinished invocation")


EMULATED_SHOP = """
from steadyflow import LlmAgent, RunConfig
from steadyflow.retry import RetryConfig

root_agent = LlmAgent(name="shop", model="gpt-4o-mini", instruction="Help with orders.")
run_config = RunConfig(retry_config=RetryConfig(max_attempts=2, jitter_ratio=0))
"""


def test_resume_on_the_emulator_shows_attempts_and_the_summary(cli, db, tmp_path, clock) -> None:
    session_id = crashed_session(db)
    agent = tmp_path / "emulated.py"
    agent.write_text(EMULATED_SHOP, encoding="utf-8")
    env = {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None}
    args = ["resume", str(agent), session_id, "--emulator", "--emulator-fault", "503@1"]
    result = invoke(cli, *args, "--session-db", db, env=env)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "provider emulator on http://127.0.0.1:" in result.stderr
    assert "attempt 1 gpt-4o-mini: 503 ModelHTTPError" in result.stdout
    assert "attempt 2 gpt-4o-mini: ok" in result.stdout
    assert "shop: " in result.stdout
    assert "1 step · 2 attempts (1 retry," in result.stdout
    assert "ok in" in result.stdout and f"session {session_id}" in result.stdout
    assert clock.sleeps == [0.5]
