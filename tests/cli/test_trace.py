"""``steadyflow trace``: the stored timeline of a session's invocations."""

import json
import re

from tests.cli.support import assert_one_line_error, invoke, session_ids

RETRIED = '[http_error(429, retry_after=2.0), call("lookup_order", {"order_id": "9"}), "done"]'


def run_retried_turn(cli, db, agent_file) -> str:
    result = invoke(cli, "run", agent_file(RETRIED), "where is 9?", "--session-db", db)
    assert result.exit_code == 0, result.stderr
    (session_id,) = session_ids(cli, db)
    return session_id


def rows(output: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line.strip()) for line in output.splitlines() if line.strip()]


def test_trace_draws_steps_attempts_waits_and_tools(cli, db, agent_file, clock) -> None:
    session_id = run_retried_turn(cli, db, agent_file)
    result = invoke(cli, "trace", session_id, "--session-db", db)
    assert result.exit_code == 0, result.stderr
    labels = [row[0] for row in rows(result.stdout)[2:-1]]
    assert labels == [
        "step 1",
        "attempt 1",
        "wait",
        "attempt 2",
        "tool lookup_order",
        "step 2",
        "attempt 1",
    ]
    text = result.stdout
    assert "429 ModelHTTPError · Retry-After 2 s" in text
    assert "Retry-After 2.00 s" in text
    assert "2 steps · 3 attempts (1 retry," in text and "budget 3/500 attempts" in text
    assert "█" in text and "░" in text and "▒" in text  # attempts, waits, tools


def test_trace_json_is_the_stored_trace(cli, db, agent_file, clock) -> None:
    session_id = run_retried_turn(cli, db, agent_file)
    result = invoke(cli, "trace", session_id, "--json", "--session-db", db)
    (trace,) = json.loads(result.stdout)
    first, second = trace["steps"][0]["attempts"]
    assert (first["status_code"], second["delay"], second["delay_from_retry_after"]) == (
        429,
        2.0,
        True,
    )


def test_one_invocation_can_be_picked_by_an_id_prefix(cli, db, agent_file, clock) -> None:
    session_id = run_retried_turn(cli, db, agent_file)
    (trace,) = json.loads(invoke(cli, "trace", session_id, "--json", "--session-db", db).stdout)
    prefix = trace["invocation_id"][:8]
    picked = invoke(cli, "trace", session_id, "--invocation", prefix, "--session-db", db)
    assert picked.exit_code == 0 and trace["invocation_id"] in picked.stdout


def test_an_unknown_invocation_is_one_line_exit_2(cli, db, agent_file, clock) -> None:
    session_id = run_retried_turn(cli, db, agent_file)
    result = invoke(cli, "trace", session_id, "--invocation", "e-zzz", "--session-db", db)
    assert_one_line_error(result, "no invocation 'e-zzz'", "its invocations: e-")


def test_an_unknown_session_is_one_line_exit_2(cli, db) -> None:
    assert_one_line_error(invoke(cli, "trace", "missing", "--session-db", db), "'missing'")
