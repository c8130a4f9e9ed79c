"""``run`` and ``serve`` check every model when they load the agent, before anything runs."""

from pathlib import Path
from typing import Any

import pytest

import steadyflow.server
from tests.cli.support import assert_one_line_error, invoke, session_ids

EXAMPLE = str(Path(__file__).parents[2] / "examples" / "order_support.py")
NO_KEY = {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}

TWO_AGENTS = """
from steadyflow import LlmAgent

root_agent = LlmAgent(
    name="desk",
    model="gpt-4o-mini",
    sub_agents=[LlmAgent(name="writer", model="claude-3-5-haiku-latest")],
)
"""


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []
    monkeypatch.setattr(steadyflow.server, "serve", lambda agent, **_: calls.append(agent))
    return calls


def test_run_without_a_key_fails_at_start_and_leaves_no_session(cli, db) -> None:
    result = invoke(cli, "run", EXAMPLE, "Where is order 812?", "--session-db", db, env=NO_KEY)
    assert_one_line_error(result, "set OPENAI_API_KEY", "--emulator", "--no-check")
    assert "the turn failed" not in result.stderr  # no attempt was made
    assert session_ids(cli, db) == []


def test_serve_without_a_key_fails_at_start(cli, db, served) -> None:
    result = invoke(cli, "serve", EXAMPLE, "--session-db", db, env=NO_KEY)
    assert_one_line_error(result, "set OPENAI_API_KEY")
    assert served == []


def test_no_check_lets_serve_start_without_a_key(cli, db, served) -> None:
    result = invoke(cli, "serve", EXAMPLE, "--no-check", "--session-db", db, env=NO_KEY)
    assert result.exit_code == 0, result.stderr
    assert len(served) == 1


def test_no_check_leaves_the_missing_key_to_the_first_model_call(cli, db) -> None:
    args = ["run", EXAMPLE, "Where is order 812?", "--no-check", "--session-db", db]
    result = invoke(cli, *args, env=NO_KEY)
    assert "the turn failed: ConfigurationError" in result.stderr
    assert len(session_ids(cli, db)) == 1


def test_every_agent_of_the_tree_is_checked(cli, db, tmp_path) -> None:
    path = tmp_path / "desk.py"
    path.write_text(TWO_AGENTS, encoding="utf-8")
    env = {"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": None}
    result = invoke(cli, "run", str(path), "q", "--session-db", db, env=env)
    assert_one_line_error(result, "set ANTHROPIC_API_KEY")
    assert "OPENAI_API_KEY" not in result.stderr


def test_an_unknown_model_in_the_agent_file_suggests_the_closest(cli, db, tmp_path) -> None:
    path = tmp_path / "typo.py"
    path.write_text(
        "from steadyflow import LlmAgent\n"
        "root_agent = LlmAgent(name='a', model='gemni-2.5-flash')\n",
        encoding="utf-8",
    )
    result = invoke(cli, "run", str(path), "q", "--session-db", db)
    assert_one_line_error(
        result, "unknown model 'gemni-2.5-flash': did you mean 'gemini-2.5-flash'?"
    )


def test_a_misspelt_name_the_pattern_accepts_is_a_warning_with_the_closest(cli, db) -> None:
    args = ["run", EXAMPLE, "Where is order 977?", "--model", "claude-sonet-4", "--emulator"]
    result = invoke(cli, *args, "--session-db", db)
    assert result.exit_code == 0, result.stderr
    assert (
        "warning: model 'claude-sonet-4' is not one steadyflow knows: "
        "did you mean 'claude-sonnet-4'? it is used as given"
    ) in result.stderr
    assert "--emulator" not in result.stderr
    assert "Order 977" in result.stdout  # the run went on


def test_known_names_and_their_dated_snapshots_pass_without_a_warning(cli, db) -> None:
    for name in ("claude-sonnet-4-20250514", "gpt-4o-mini", "gemini-2.5-flash"):
        args = ["run", EXAMPLE, "Where is order 977?", "--model", name, "--emulator"]
        result = invoke(cli, *args, "--session-db", db)
        assert result.exit_code == 0, result.stderr
        assert "warning" not in result.stderr


def test_an_unknown_name_under_the_emulator_does_not_suggest_the_emulator(
    cli, db, tmp_path
) -> None:
    path = tmp_path / "typo.py"
    path.write_text(
        "from steadyflow import LlmAgent\n"
        "root_agent = LlmAgent(name='a', model='gemni-2.5-flash')\n",
        encoding="utf-8",
    )
    result = invoke(cli, "run", str(path), "q", "--emulator", "--session-db", db)
    assert result.exit_code == 2
    (error,) = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert "unknown model 'gemni-2.5-flash': did you mean 'gemini-2.5-flash'?" in error
    assert "--emulator" not in error
