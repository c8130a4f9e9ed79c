"""``steadyflow resume --all-expired`` and a corrupt record: reported, skipped, the rest resumed."""

import socket
import sqlite3

from steadyflow.sessions import InvocationOwner
from tests.cli.support import invoke
from tests.cli.test_resume_all import held_sessions, statuses
from tests.durable.test_resume import dead_pid


def test_a_corrupt_record_is_one_line_and_exit_1_and_the_others_are_resumed(cli, db, agent_file):
    host = socket.gethostname()
    ids = held_sessions(
        db,
        {"a": InvocationOwner(host, dead_pid(), 0.0), "b": InvocationOwner(host, dead_pid(), 0.0)},
    )
    with sqlite3.connect(db.removeprefix("sqlite:///")) as raw:
        raw.execute("UPDATE steadyflow_invocations SET journal = 'not json' WHERE id = 'e-a'")

    result = invoke(cli, "resume", agent_file('["two"]'), "--all-expired", "--session-db", db)

    assert result.exit_code == 1
    first, second = result.stdout.splitlines()
    assert first.startswith(f"e-a session {ids['a']} (user user-a) corrupt: journal is not JSON")
    assert second == f"e-b session {ids['b']} (user user-b) resumed: completed"
    assert "1 unreadable invocation record(s) skipped" in result.stderr
    assert statuses(cli, db, ids["b"]) == [("completed", 1)]
