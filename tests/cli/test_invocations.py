"""``steadyflow invocations SESSION_ID`` and ``steadyflow trace`` read invocation records."""

import json

from tests.cli.support import invoke, session_ids


def run_once(cli, db, agent_file, script='["hello"]') -> str:
    result = invoke(cli, "run", agent_file(script), "hi", "--session-db", db)
    assert result.exit_code == 0, result.stderr
    return session_ids(cli, db)[-1]


def test_invocations_shows_one_row_per_record(cli, db, agent_file) -> None:
    session_id = run_once(cli, db, agent_file)
    shown = invoke(cli, "invocations", session_id, "--session-db", db)
    assert shown.exit_code == 0, shown.stderr
    header, row = shown.stdout.splitlines()
    assert header.split()[:5] == ["invocation", "agent", "status", "started", "attempts"]
    assert row.split()[1:3] == ["shop", "completed"]


def test_invocations_json_holds_each_record_with_its_trace(cli, db, agent_file) -> None:
    session_id = run_once(cli, db, agent_file)
    shown = invoke(cli, "invocations", session_id, "--json", "--session-db", db)
    (record,) = json.loads(shown.stdout)
    assert (record["status"], record["session_id"], record["resume_count"]) == (
        "completed",
        session_id,
        0,
    )
    assert record["trace"]["invocation_id"] == record["id"]


def test_trace_reads_the_record(cli, db, agent_file) -> None:
    session_id = run_once(cli, db, agent_file)
    shown = invoke(cli, "trace", session_id, "--json", "--session-db", db)
    (trace,) = json.loads(shown.stdout)
    assert trace["status"] == "ok" and len(trace["steps"]) == 1
