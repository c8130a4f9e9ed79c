"""``steadyflow run``: one-shot and interactive turns, JSON lines, resuming, bad input."""

import json

from steadyflow.models import LlmRegistry
from steadyflow.testing import ScriptedLlm
from tests.cli.support import assert_one_line_error, invoke, session_ids


def test_a_query_is_answered_with_the_tool_call_and_a_summary(cli, db, agent_file) -> None:
    result = invoke(cli, "run", agent_file(), "Where is order 812?", "--session-db", db)
    assert result.exit_code == 0, result.stderr
    assert "→ lookup_order(order_id='812')" in result.stdout
    assert "← lookup_order {'order_id': '812', 'status': 'shipped'}" in result.stdout
    assert "shop: Order 812 has shipped." in result.stdout
    assert "2 steps · 2 attempts (0 retries" in result.stdout
    assert len(session_ids(cli, db)) == 1


def test_jsonl_prints_only_events_one_per_line(cli, db, agent_file) -> None:
    result = invoke(cli, "run", agent_file(), "Where is 812?", "--jsonl", "--session-db", db)
    assert result.exit_code == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["author"] for e in events] == ["shop", "shop", "shop"]
    assert events[0]["content"]["parts"][0]["function_call"]["name"] == "lookup_order"
    assert events[-1]["content"]["parts"][0]["text"] == "Order 812 has shipped."
    assert "session " in result.stderr


def test_streaming_prints_the_answer_once(cli, db, agent_file) -> None:
    path = agent_file('[Stream(["Order 812 ", "has shipped."])]')
    result = invoke(cli, "run", path, "Where?", "--stream", "--session-db", db)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("Order 812 has shipped.") == 1


def test_interactive_session_runs_a_turn_per_line_until_exit(cli, db, agent_file) -> None:
    script = '["first answer", "second answer", "never"]'
    result = invoke(cli, "run", agent_file(script), "--session-db", db, input="one\ntwo\nexit\n")
    assert result.exit_code == 0, result.stderr
    assert "shop: first answer" in result.stdout and "shop: second answer" in result.stdout
    assert "never" not in result.stdout


def test_resume_continues_the_stored_conversation(cli, db, agent_file) -> None:
    assert invoke(cli, "run", agent_file('["hello"]'), "hi", "--session-db", db).exit_code == 0
    (session_id,) = session_ids(cli, db)
    resumed = invoke(
        cli, "run", agent_file('["again"]'), "more", "--resume", session_id, "--session-db", db
    )
    assert resumed.exit_code == 0, resumed.stderr
    assert session_ids(cli, db) == [session_id]
    shown = invoke(cli, "sessions", "show", session_id, "--session-db", db)
    said = [line.split(" ", 1)[1] for line in shown.stdout.splitlines()[1:]]
    assert [line for line in said if not line.startswith("· invocation")] == [
        "user: hi",
        "shop: hello",
        "user: more",
        "shop: again",
    ]


def test_model_flag_replaces_the_agents_model(cli, db, agent_file) -> None:
    LlmRegistry.register(r"cli-test-.*", lambda name: ScriptedLlm(["from the registry"]))
    try:
        result = invoke(cli, "run", agent_file(), "q", "--model", "cli-test-1", "--session-db", db)
    finally:
        LlmRegistry.unregister(r"cli-test-.*")
    assert result.exit_code == 0, result.stderr
    assert "shop: from the registry" in result.stdout


def test_a_failed_turn_exits_1_with_one_line(cli, db, agent_file) -> None:
    result = invoke(cli, "run", agent_file("[http_error(400)]"), "q", "--session-db", db)
    assert result.exit_code == 1
    assert result.stderr.strip().startswith("error: the turn failed: ModelHTTPError")
    assert "Traceback" not in result.stderr


def test_retries_are_shown_as_they_happen(cli, db, agent_file, clock) -> None:
    result = invoke(cli, "run", agent_file("[http_error(503), 'ok']"), "q", "--session-db", db)
    assert result.exit_code == 0, result.stderr
    assert "attempt 1 scripted-model: 503 ModelHTTPError" in result.stdout
    (waited,) = clock.sleeps
    assert f"waiting {waited:.2f} s (backoff)" in result.stdout
    assert "attempt 2 scripted-model: ok" in result.stdout


def test_output_to_a_pipe_has_no_control_codes_even_without_no_color(cli, db, agent_file) -> None:
    result = invoke(cli, "run", agent_file(), "q", "--session-db", db, env={"NO_COLOR": None})
    assert "\x1b[" not in result.stdout + result.stderr


def test_missing_agent_file_is_one_line_exit_2(cli, db, tmp_path) -> None:
    result = invoke(cli, "run", str(tmp_path / "nope.py"), "q", "--session-db", db)
    assert_one_line_error(result, "agent file", "nope.py", "not found", "root_agent")


def test_file_without_root_agent_is_one_line_exit_2(cli, db, tmp_path) -> None:
    path = tmp_path / "empty_agent.py"
    path.write_text("x = 1\n", encoding="utf-8")
    result = invoke(cli, "run", str(path), "q", "--session-db", db)
    assert_one_line_error(result, "defines no 'root_agent'")


def test_root_agent_that_is_not_an_agent_is_one_line_exit_2(cli, db, tmp_path) -> None:
    path = tmp_path / "wrong.py"
    path.write_text("root_agent = 'an agent'\n", encoding="utf-8")
    assert_one_line_error(invoke(cli, "run", str(path), "q", "--session-db", db), "not an agent")


def test_agent_file_that_fails_to_import_is_one_line_exit_2(cli, db, tmp_path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("raise RuntimeError('boom')\n", encoding="utf-8")
    result = invoke(cli, "run", str(path), "q", "--session-db", db)
    assert_one_line_error(result, "importing", "RuntimeError: boom")


def test_unknown_module_is_one_line_exit_2(cli, db) -> None:
    result = invoke(cli, "run", "no_such_pkg.agents:root", "q", "--session-db", db)
    assert_one_line_error(result, "no module named 'no_such_pkg.agents'")


def test_unknown_model_name_is_one_line_exit_2(cli, db, agent_file) -> None:
    result = invoke(cli, "run", agent_file(), "q", "--model", "nonsense-9", "--session-db", db)
    assert_one_line_error(result, "unknown model 'nonsense-9'", "steadyflow resolves gpt-*")


def test_a_misspelt_model_name_suggests_the_closest_known_one(cli, db, agent_file) -> None:
    result = invoke(cli, "run", agent_file(), "q", "--model", "gtp-4o-mini", "--session-db", db)
    assert_one_line_error(result, "unknown model 'gtp-4o-mini': did you mean 'gpt-4o-mini'?")
    assert "LlmRegistry.register" not in result.stderr


def test_unreachable_database_is_one_line_exit_2(cli, agent_file) -> None:
    url = "postgresql+asyncpg://nobody:secret@127.0.0.1:1/nowhere"
    result = invoke(cli, "run", agent_file(), "q", "--session-db", url)
    assert_one_line_error(result, "cannot open the session database", "--session-db")
    assert "secret" not in result.stderr


def test_unknown_database_scheme_is_one_line_exit_2(cli, agent_file) -> None:
    result = invoke(cli, "run", agent_file(), "q", "--session-db", "mongodb://x/y")
    assert_one_line_error(result, "unknown scheme 'mongodb'")


def test_bad_flag_values_are_one_line_exit_2(cli, db, agent_file) -> None:
    path = agent_file()
    assert_one_line_error(
        invoke(cli, "run", path, "q", "--retry-attempts", "0", "--session-db", db),
        "--retry-attempts",
        "greater than or equal to 1",
    )
    assert_one_line_error(
        invoke(cli, "run", path, "q", "--max-llm-calls", "lots", "--session-db", db),
        "--max-llm-calls",
        "valid integer",
    )
    assert_one_line_error(invoke(cli, "run", path, "q", "--colour"), "No such option")


def test_resuming_an_unknown_session_is_one_line_exit_2(cli, db, agent_file) -> None:
    result = invoke(cli, "run", agent_file(), "q", "--resume", "abc", "--session-db", db)
    assert_one_line_error(result, "no session 'abc'", "steadyflow sessions list")


def test_debug_shows_the_traceback_anywhere_on_the_line(cli, db, tmp_path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("raise RuntimeError('boom')\n", encoding="utf-8")
    result = invoke(cli, "run", str(path), "q", "--debug", "--session-db", db)
    assert result.exit_code == 2
    assert "Traceback" in result.stderr and "RuntimeError: boom" in result.stderr


def test_a_module_path_with_an_attribute_is_loaded(
    cli, db, agent_file, tmp_path, monkeypatch
) -> None:
    agent_file(name="shop_agents.py")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    result = invoke(cli, "run", "shop_agents:root_agent", "Where is 812?", "--session-db", db)
    assert result.exit_code == 0, result.stderr
    assert "Order 812 has shipped." in result.stdout


def test_a_file_path_may_name_another_attribute(cli, db, tmp_path) -> None:
    path = tmp_path / "two.py"
    path.write_text(
        "from steadyflow import LlmAgent\n"
        "from steadyflow.testing import ScriptedLlm\n"
        "helper = LlmAgent(name='helper', model=ScriptedLlm(['from helper']))\n",
        encoding="utf-8",
    )
    result = invoke(cli, "run", f"{path}:helper", "q", "--session-db", db)
    assert result.exit_code == 0, result.stderr
    assert "helper: from helper" in result.stdout
