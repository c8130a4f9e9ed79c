"""``steadyflow dump-request``: the request the next step would send, as JSON."""

import json

from tests.cli.support import assert_one_line_error, invoke, session_ids
from tests.support.payloads import nulls


def stored_session(cli, db, agent_file) -> tuple[str, str]:
    path = agent_file('[call("lookup_order", {"order_id": "5"}), "Order 5 has shipped."]')
    assert invoke(cli, "run", path, "Where is 5?", "--session-db", db).exit_code == 0
    (session_id,) = session_ids(cli, db)
    return path, session_id


def test_the_request_holds_the_stored_conversation_tools_and_model(cli, db, agent_file) -> None:
    path, session_id = stored_session(cli, db, agent_file)
    result = invoke(cli, "dump-request", path, "--session", session_id, "--session-db", db)
    assert result.exit_code == 0, result.stderr
    request = json.loads(result.stdout)
    assert request["model"] == "scripted-model"
    assert [t["name"] for t in request["config"]["tools"]] == ["lookup_order"]
    kinds = [
        next(k for k in ("text", "function_call", "function_response") if part.get(k) is not None)
        for content in request["contents"]
        for part in content["parts"]
    ]
    assert kinds == ["text", "function_call", "function_response", "text"]


def test_message_adds_the_next_user_turn_without_storing_it(cli, db, agent_file) -> None:
    path, session_id = stored_session(cli, db, agent_file)
    result = invoke(
        cli,
        "dump-request",
        path,
        "--session",
        session_id,
        "--message",
        "And 6?",
        "--session-db",
        db,
    )
    request = json.loads(result.stdout)
    assert request["contents"][-1]["parts"][0]["text"] == "And 6?"
    again = invoke(cli, "dump-request", path, "--session", session_id, "--session-db", db)
    assert "And 6?" not in again.stdout


def test_an_unknown_session_is_one_line_exit_2(cli, db, agent_file) -> None:
    result = invoke(cli, "dump-request", agent_file(), "--session", "zz", "--session-db", db)
    assert_one_line_error(result, "no session 'zz'")


def test_the_session_flag_is_required(cli, agent_file) -> None:
    assert_one_line_error(invoke(cli, "dump-request", agent_file()), "--session")


def test_an_unknown_model_is_one_line_exit_2(cli, db, agent_file) -> None:
    path, session_id = stored_session(cli, db, agent_file)
    result = invoke(
        cli, "dump-request", path, "--session", session_id, "--model", "zzz", "--session-db", db
    )
    assert_one_line_error(result, "unknown model 'zzz'")


def test_the_request_leaves_out_null_fields(cli, db, agent_file) -> None:
    path, session_id = stored_session(cli, db, agent_file)
    result = invoke(cli, "dump-request", path, "--session", session_id, "--session-db", db)
    assert result.exit_code == 0, result.stderr
    assert nulls(json.loads(result.stdout)) == []
