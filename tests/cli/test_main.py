"""The command as a whole: help everywhere, ``python -m steadyflow``, colours, emulate."""

import io
import subprocess
import sys

import pytest

from steadyflow.cli._console import make_console
from tests.cli.support import assert_one_line_error, invoke

COMMANDS = [
    ["run"],
    ["demo"],
    ["trace"],
    ["dump-request"],
    ["sessions"],
    ["sessions", "list"],
    ["sessions", "show"],
    ["sessions", "delete"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_has_help(cli, command) -> None:
    result = invoke(cli, *command, "--help")
    assert result.exit_code == 0
    assert "Usage: steadyflow" in result.stdout
    assert "--help" in result.stdout


def test_top_level_help_lists_the_commands(cli) -> None:
    result = invoke(cli, "--help")
    for name in ("run", "demo", "sessions", "trace", "dump-request", "emulate", "--debug"):
        assert name in result.stdout


def test_an_unknown_command_is_one_line_exit_2(cli) -> None:
    assert_one_line_error(invoke(cli, "fly"), "No such command 'fly'")


def test_emulate_passes_its_arguments_to_the_emulator(cli) -> None:
    result = invoke(cli, "emulate", "--help")
    assert result.exit_code == 0
    assert (
        "Usage: steadyflow emulate [OPTIONS]" in result.stdout and "--fault SPEC" in result.stdout
    )


def test_emulate_rejects_a_bad_port_with_exit_2(cli) -> None:
    assert_one_line_error(invoke(cli, "emulate", "--port", "x"), "--port", "valid integer")


@pytest.mark.slow  # a fresh interpreter
def test_python_dash_m_runs_the_command() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "steadyflow", "--help"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert "dump-request" in result.stdout


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def colours_printed(monkeypatch, no_color: str | None) -> str:
    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    make_console().print("[red]failed[/]")
    return terminal.getvalue()


def test_a_terminal_gets_colours(monkeypatch) -> None:
    assert "\x1b[31m" in colours_printed(monkeypatch, None)


def test_no_color_turns_colours_off_on_a_terminal(monkeypatch) -> None:
    assert "\x1b[31m" not in colours_printed(monkeypatch, "1")
