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
