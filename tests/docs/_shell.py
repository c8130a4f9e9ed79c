"""Check shell lines of the docs against the real ``steadyflow`` command and Makefile."""

from __future__ import annotations

import re
import shlex
from typing import Any

import typer.main

from steadyflow.cli._commands import app
from steadyflow.testing.emulator._cli import build_parser

from ._blocks import ROOT

DEBUG = "--debug"


def transcript(source: str) -> list[tuple[str, list[str]]]:
    """A console block as (command, the output lines shown after it) pairs."""
    pairs: list[tuple[str, list[str]]] = []
    pending = ""
    for raw in source.splitlines():
        line = raw.strip()
        if pending:
            line, pending = pending + " " + line, ""
        elif not line.startswith("$ "):
            if pairs:
                pairs[-1][1].append(line)
            continue
        else:
            line = line[2:]
        if line.endswith("\\"):
            pending = line[:-1].strip()
            continue
        pairs.append((line, []))
    return pairs


def command_lines(source: str, *, prompt: bool) -> list[str]:
    """The commands of a block: ``$ `` lines (continuations joined) or every line."""
    if prompt:
        return [command for command, _ in transcript(source)]
    lines: list[str] = []
    pending = ""
    for raw in source.splitlines():
        line = raw.strip()
        if pending:
            line, pending = pending + " " + line, ""
        if line.endswith("\\"):
            pending = line[:-1].strip()
            continue
        if line and not line.startswith("#"):
            lines.append(line)
    return lines


def words(line: str) -> list[str]:
    """The words of one shell line, comments dropped."""
    return shlex.split(line, comments=True)


def _root() -> Any:
    return typer.main.get_command(app)


def resolve(args: list[str]) -> tuple[Any, list[str], list[str]]:
    """The command ``args`` name, the words that named it, and the rest."""
    command, path = _root(), ["steadyflow"]
    args = [a for a in args if a != DEBUG]
    while hasattr(command, "get_command") and args and not args[0].startswith("-"):
        sub = command.get_command(None, args[0])
        if sub is None:
            raise AssertionError(f"no command {' '.join([*path, args[0]])!r}")
        command, path, args = sub, [*path, args[0]], args[1:]
    return command, path, args


def option_names(command: Any) -> set[str]:
    """Every option spelling a command accepts (the emulator's argparse ones too)."""
    if command.name == "emulate":
        return {opt for action in build_parser()._actions for opt in action.option_strings}
    names = {"--help", "-h"}
    for param in command.params:
        names.update(o for o in (*param.opts, *param.secondary_opts) if o.startswith("-"))
    return names


def parse(args: list[str]) -> None:
    """Parse a full command line as the CLI would, without running it."""
    command, path, rest = resolve(args)
    if {"--help", "-h", "--version"} & set(rest):
        return  # eager options: the test runs these commands instead
    if command.name == "emulate":
        build_parser().parse_args(rest)
        return
    command.make_context(" ".join(path), list(rest))


def check_synopsis(args: list[str]) -> None:
    """A synopsis line (``[--app A]``, ``SPEC ...``): its command and options exist."""
    command, _path, rest = resolve(args)
    known = option_names(command)
    for word in rest:
        for option in re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", word):
            if option not in known:
                raise AssertionError(f"{command.name!r} has no option {option}")


def make_targets() -> set[str]:
    """The targets the Makefile defines."""
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([a-zA-Z][\w.-]*)\s*:(?!=)", text, flags=re.MULTILINE))
