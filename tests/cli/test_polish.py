"""The command line's small manners: --version, help at 80 columns, one-line errors, plurals."""

from importlib.metadata import version

import pytest

from tests.cli.support import assert_one_line_error, invoke

COMMANDS = [["run"], ["demo"], ["serve"], ["trace"], ["emulate"], ["sessions", "list"]]


def test_version_prints_the_installed_version(cli) -> None:
    result = invoke(cli, "--version")
    assert result.exit_code == 0
    assert result.stdout == f"steadyflow {version('steadyflow')}\n"


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_at_80_columns_wraps_and_cuts_nothing(cli, command) -> None:
    result = invoke(cli, *command, "--help", env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"Usage: steadyflow {' '.join(command)} [OPTIONS]")
    assert "…" not in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 80


def test_help_shows_the_whole_default_session_database(cli) -> None:
    result = invoke(cli, "run", "--help", env={"COLUMNS": "80"})
    flat = " ".join(result.stdout.split())
    assert "default: sqlite:///.steadyflow/sessions.db" in flat
    assert "env var: STEADYFLOW_SESSION_DB" in flat


def test_a_missing_argument_is_one_sentence_without_doubled_punctuation(cli) -> None:
    result = invoke(cli, "trace")
    assert_one_line_error(result, "Missing argument 'SESSION_ID'; see 'steadyflow trace --help'")
    assert ".;" not in result.stderr


def test_one_step_and_one_attempt_are_singular(cli, db, agent_file) -> None:
    result = invoke(cli, "run", agent_file('["hello"]'), "hi", "--session-db", db)
    assert result.exit_code == 0, result.stderr
    assert "1 step · 1 attempt (0 retries, waited 0.00 s) · 0 tool calls" in result.stdout


def test_emulate_rejects_a_bad_fault_in_one_line(cli) -> None:
    assert_one_line_error(invoke(cli, "emulate", "--fault", "zz"), "--fault", "bad fault spec")
