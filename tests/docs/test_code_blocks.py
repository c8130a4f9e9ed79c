"""Every code block of the README and of the documentation site runs here.

How a page is tested (also in docs/contributing.md):

- ```python blocks are complete programs: each runs on its own, in a fresh
  module, in an empty temporary folder, with no provider key and no
  session-database variable in the environment. Imports are written out; no
  top-level ``await`` (use ``asyncio.run``); no ``...`` placeholder (an
  ``...`` inside a subscript, ``tuple[int, ...]``, is fine). Use
  ``steadyflow.testing`` doubles or the provider emulator, never a real
  provider. Blocks run under ``fake_clock()``, so a retry's wait is
  recorded, not slept (a block's own ``fake_clock()`` nests inside). A
  block may read a variable with a default
  (``os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")``) to show
  where the real address goes.
- A ```text (or ```output) block right after a python block is its printed
  output, compared line by line (trailing spaces aside). Logging goes to stderr and is not compared.
- ```console blocks show commands after ``$ ``, and their output after
  them. Every ``steadyflow ...`` command is parsed by the real command line
  (the command, its options and their values must exist and convert);
  ``--help`` and ``--version`` commands are also run, must succeed, and must
  print every output line the block shows (``...`` stands for the rest). ``make`` commands must
  name targets of the Makefile. Other commands (``pip``, ``export``,
  ``createdb``, ``curl``) are shown, not run: they need the network, a
  server or a change to the machine.
- ```bash blocks are synopses, placeholders allowed (``[--app A]``,
  ``SESSION_ID``): every ``steadyflow`` line must name a real command, and
  every option it shows must be one of that command's.
- Other blocks (no language: diagrams, timelines, formulas) are not run.
"""

from __future__ import annotations

import contextlib
import io
import sys
import types
from pathlib import Path

import pytest
from typer.testing import CliRunner

from steadyflow.cli._commands import app
from steadyflow.testing import fake_clock
from tests.support.provider_env import PROVIDER_VARIABLES

from ._blocks import Block, all_blocks, placeholders
from ._shell import check_synopsis, command_lines, make_targets, parse, transcript, words

PYTHON_BLOCKS = all_blocks("python")
CONSOLE_BLOCKS = all_blocks("console")
BASH_BLOCKS = all_blocks("bash")

ENVIRONMENT = (
    *PROVIDER_VARIABLES,
    "STEADYFLOW_SESSION_DB",
    "STEADYFLOW_AUTH_TOKEN",
    "STEADYFLOW_OPERATOR_TOKEN",
)


def _ids(blocks: list[Block]) -> list[str]:
    return [b.id for b in blocks]


def run_python(block: Block) -> str:
    """Run a block as a module of its own; return what it printed."""
    name = f"docs_block_{abs(hash(block.id))}"
    module = types.ModuleType(name)
    module.__file__ = str(block.path)
    sys.modules[name] = module
    stdout = io.StringIO()
    try:
        code = compile(block.source, block.id, "exec")
        with fake_clock(), contextlib.redirect_stdout(stdout):
            exec(code, module.__dict__)
    finally:
        del sys.modules[name]
    return stdout.getvalue()


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines()]


@pytest.fixture
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for variable in ENVIRONMENT:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=_ids(PYTHON_BLOCKS))
def test_python_block_runs_and_prints_what_the_page_shows(block: Block, clean_env: Path) -> None:
    assert not placeholders(block.source), f"{block.id}: `...` placeholder on block line(s)"
    printed = run_python(block)
    if block.output is not None:
        assert _lines(printed) == _lines(block.output), f"{block.id}: printed output differs"


@pytest.mark.parametrize("block", CONSOLE_BLOCKS, ids=_ids(CONSOLE_BLOCKS))
def test_console_commands_are_ones_the_tools_accept(block: Block, clean_env: Path) -> None:
    targets = make_targets()
    for line, shown in transcript(block.source):
        args = words(line)
        if args[0] == "make":
            missing = [t for t in args[1:] if "=" not in t and t not in targets]
            assert not missing, f"{block.id}: no Makefile target {missing}"
        elif args[0] == "steadyflow":
            parse(args[1:])
            if {"--help", "--version"} & set(args):
                result = CliRunner().invoke(app, args[1:], terminal_width=80)
                assert result.exit_code == 0, result.output
                expected = [text for text in shown if text and text != "..."]
                absent = [text for text in expected if text not in result.output]
                assert not absent, f"{block.id}: `{line}` does not print {absent}"


@pytest.mark.parametrize("block", BASH_BLOCKS, ids=_ids(BASH_BLOCKS))
def test_bash_synopsis_names_real_commands_and_options(block: Block) -> None:
    for line in command_lines(block.source, prompt=False):
        if line.startswith("steadyflow "):
            check_synopsis(words(line)[1:])


def test_every_page_with_code_is_collected() -> None:
    pages = {b.path.name for b in PYTHON_BLOCKS}
    assert {"README.md", "getting-started.md", "retries.md"} <= pages
