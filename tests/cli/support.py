"""Helpers shared by the command-line tests."""

from __future__ import annotations

from typer.testing import CliRunner

from steadyflow.cli._commands import app


def invoke(cli: CliRunner, *args: str, input: str | None = None, env: dict | None = None):
    """Run ``steadyflow ARGS`` in-process and return the result."""
    return cli.invoke(app, list(args), input=input, env=env, prog_name="steadyflow")


def error_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]


def assert_one_line_error(result, *fragments: str) -> None:
    """Exit code 2, exactly one line on stderr naming the problem, no traceback."""
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = error_lines(result)
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0]
    assert "Traceback" not in result.stderr + result.stdout


def session_ids(cli: CliRunner, db: str) -> list[str]:
    listed = invoke(cli, "sessions", "list", "--session-db", db)
    assert listed.exit_code == 0, listed.stderr
    return [line.split()[0] for line in listed.stdout.splitlines()[1:] if line.strip()]
