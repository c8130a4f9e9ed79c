"""``steadyflow sessions list|show|delete`` against a SQLite session database."""

import asyncio
import json

from steadyflow.sessions import open_session_service
from tests.cli.support import assert_one_line_error, invoke, session_ids


def run_once(cli, db, agent_file, script='["hello"]', message="hi") -> str:
    result = invoke(cli, "run", agent_file(script), message, "--session-db", db)
    assert result.exit_code == 0, result.stderr
    return session_ids(cli, db)[-1]


def test_list_shows_each_session_with_app_user_and_event_count(cli, db, agent_file) -> None:
    session_id = run_once(cli, db, agent_file)
    listed = invoke(cli, "sessions", "list", "--session-db", db)
    assert listed.exit_code == 0
    header, row = listed.stdout.splitlines()
    assert header.split() == [
        "session",
        "app",
        "user",
        "events",
        "updated",
        "last",
        "turn",
        "first",
        "message",
    ]
    assert row.split()[:4] == [session_id, "shop", "user", "2"]  # user, answer


def test_list_of_an_empty_database_says_so(cli, db) -> None:
    listed = invoke(cli, "sessions", "list", "--session-db", db)
    assert (listed.exit_code, listed.stdout.strip()) == (0, "no sessions")


def test_list_filters_by_app(cli, db, agent_file) -> None:
    run_once(cli, db, agent_file)
    listed = invoke(cli, "sessions", "list", "--app", "other", "--session-db", db)
    assert listed.stdout.strip() == "no sessions for app other"


def test_show_prints_the_transcript_and_the_invocation_summary(cli, db, agent_file) -> None:
    session_id = run_once(cli, db, agent_file, '[call("lookup_order", {"order_id": "7"}), "done"]')
    shown = invoke(cli, "sessions", "show", session_id, "--session-db", db)
    assert shown.exit_code == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0].startswith(f"session {session_id} · app shop · user user · 4 events")
    said = [line.split(" ", 1)[1] for line in lines[1:]]
    assert said[:4] == [
        "user: hi",
        "shop → lookup_order({'order_id': '7'})",
        "shop ← lookup_order {'order_id': '7', 'status': 'shipped'}",
        "shop: done",
    ]
    assert said[4].startswith("· invocation e-") and "2 steps · 2 attempts" in said[4]


def test_show_json_is_the_whole_session(cli, db, agent_file) -> None:
    session_id = run_once(cli, db, agent_file)
    shown = invoke(cli, "sessions", "show", session_id, "--json", "--session-db", db)
    data = json.loads(shown.stdout)
    assert (data["id"], data["app_name"], len(data["events"])) == (session_id, "shop", 2)


def test_delete_with_yes_removes_the_session(cli, db, agent_file) -> None:
    session_id = run_once(cli, db, agent_file)
    deleted = invoke(cli, "sessions", "delete", session_id, "--yes", "--session-db", db)
    assert deleted.exit_code == 0
    assert deleted.stdout.strip() == f"deleted session {session_id} (2 events)"
    assert session_ids(cli, db) == []


def test_delete_without_a_terminal_needs_yes(cli, db, agent_file) -> None:
    session_id = run_once(cli, db, agent_file)
    refused = invoke(cli, "sessions", "delete", session_id, "--session-db", db)
    assert_one_line_error(refused, "pass --yes")
    assert session_ids(cli, db) == [session_id]


def test_show_and_delete_of_an_unknown_session_are_one_line_exit_2(cli, db) -> None:
    assert_one_line_error(invoke(cli, "sessions", "show", "nope", "--session-db", db), "'nope'")
    assert_one_line_error(
        invoke(cli, "sessions", "delete", "nope", "--yes", "--session-db", db), "no session"
    )


def test_an_id_held_by_two_apps_asks_for_app_and_user(cli, db) -> None:
    async def create_twice() -> None:
        store = open_session_service(db)
        for app in ("a", "b"):
            await store.create_session(app_name=app, user_id="u", session_id="same")
        await store.close()

    asyncio.run(create_twice())
    result = invoke(cli, "sessions", "show", "same", "--session-db", db)
    assert_one_line_error(result, "app a / user u, app b / user u", "pass --app and --user")
    picked = invoke(cli, "sessions", "show", "same", "--app", "b", "--session-db", db)
    assert "app b" in picked.stdout


def test_a_memory_store_cannot_be_listed_without_an_app(cli) -> None:
    result = invoke(cli, "sessions", "list", "--session-db", "memory://")
    assert_one_line_error(result, "pass --app")


def test_sessions_without_a_subcommand_shows_help(cli) -> None:
    result = invoke(cli, "sessions")
    assert "list" in result.stdout and "show" in result.stdout and "delete" in result.stdout
