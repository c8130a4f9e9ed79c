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
