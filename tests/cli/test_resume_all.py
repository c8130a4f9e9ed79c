"""``steadyflow resume AGENT --all-expired``: every expired invocation of the app, one line each."""

import asyncio
import json
import socket
import time

from steadyflow.durable import current_owner
from steadyflow.events import Event
from steadyflow.sessions import InvocationOwner, InvocationRecord, open_session_service
from steadyflow.types import Content
from tests.cli.support import assert_one_line_error, invoke
from tests.durable.test_resume import dead_pid


def held_sessions(db: str, owners: dict[str, InvocationOwner]) -> dict[str, str]:
    """One session per owner name, each with the user's message and a running record."""

    async def write() -> dict[str, str]:
        service = open_session_service(db)
        ids = {}
        for n, (name, owner) in enumerate(owners.items()):
            session = await service.create_session(app_name="shop", user_id=f"user-{name}")
            record = InvocationRecord(
                id=f"e-{name}",
                app_name="shop",
                user_id=session.user_id,
                session_id=session.id,
                agent="shop",
                started_at=float(n),
                owner=owner,
                lease_expires_at=time.time() + 3600.0,
            )
            message = Event(invocation_id=record.id, author="user", content=Content.from_text("hi"))
            await service.append_event_and_record(session, message, record)
            ids[name] = session.id
        await service.close()
        return ids

    return asyncio.run(write())


def statuses(cli, db: str, session_id: str) -> list[tuple[str, int]]:
    shown = invoke(cli, "invocations", session_id, "--json", "--session-db", db)
    return [(r["status"], r["resume_count"]) for r in json.loads(shown.stdout)]


def test_every_crashed_session_is_resumed_and_the_live_one_left_alone(cli, db, agent_file):
    host = socket.gethostname()
    ids = held_sessions(
        db,
        {
            "a": InvocationOwner(host, dead_pid(), 0.0),
            "b": InvocationOwner(host, dead_pid(), 0.0),
            "live": current_owner(),
        },
    )
    result = invoke(
        cli, "resume", agent_file('["one", "two"]'), "--all-expired", "--session-db", db
    )

    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines == [
        f"e-a session {ids['a']} (user user-a) resumed: completed",
        f"e-b session {ids['b']} (user user-b) resumed: completed",
        f"e-live session {ids['live']} (user user-live) live: held by {current_owner()}",
    ]
    assert statuses(cli, db, ids["a"]) == [("completed", 1)]
    assert statuses(cli, db, ids["live"]) == [("running", 0)]


def test_a_failed_resume_is_reported_and_the_exit_code_says_so(cli, db, agent_file):
    host = socket.gethostname()
    ids = held_sessions(
        db,
        {"a": InvocationOwner(host, dead_pid(), 0.0), "b": InvocationOwner(host, dead_pid(), 0.0)},
    )
    script = '[http_error(400, "bad request"), "two"]'
    result = invoke(cli, "resume", agent_file(script), "--all-expired", "--session-db", db)

    assert result.exit_code == 1
    first, second = result.stdout.splitlines()
    assert first.startswith(f"e-a session {ids['a']} (user user-a) failed: ")
    assert second == f"e-b session {ids['b']} (user user-b) resumed: completed"
    assert "1 of 2 resumed invocations failed" in result.stderr


def test_nothing_to_resume_is_one_line_and_success(cli, db, agent_file):
    result = invoke(cli, "resume", agent_file(), "--all-expired", "--session-db", db)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "no unfinished invocation of app 'shop'"


def test_a_session_id_with_all_expired_is_refused(cli, db, agent_file):
    result = invoke(cli, "resume", agent_file(), "s-1", "--all-expired", "--session-db", db)
    assert_one_line_error(result, "--all-expired resumes every session", "drop SESSION_ID")


def test_resume_without_a_session_id_says_what_to_give(cli, db, agent_file):
    result = invoke(cli, "resume", agent_file(), "--session-db", db)
    assert_one_line_error(result, "give the SESSION_ID", "--all-expired")


def test_serve_resumes_at_start_up_unless_told_not_to(cli, agent_file, db, monkeypatch):
    import steadyflow.server

    calls = []
    monkeypatch.setattr(steadyflow.server, "serve", lambda agent, **options: calls.append(options))
    assert invoke(cli, "serve", agent_file(), "--session-db", db).exit_code == 0
    assert (
        invoke(cli, "serve", agent_file(), "--session-db", db, "--no-resume-expired").exit_code == 0
    )
    assert [c["resume_expired"] for c in calls] == [True, False]
