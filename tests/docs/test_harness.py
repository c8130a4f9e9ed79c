"""The docs harness itself: it must catch what it claims to catch."""

from __future__ import annotations

from pathlib import Path

import pytest

from ._blocks import Block, blocks, placeholders
from ._shell import check_synopsis, command_lines, parse, transcript, words


def test_placeholders_are_found_but_not_in_subscripts() -> None:
    assert placeholders("x: tuple[int, ...] = (1,)\n") == []
    assert placeholders("def f():\n    ...\n") == [2]
    assert placeholders("agent = make(..., tools=[])\n") == [1]


def test_a_python_block_takes_the_output_block_right_after_it(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nprint(1)\n```\n\n```text\n1\n```\n\n"
        "```python\nprint(2)\n```\n\nprose\n\n```text\n2\n```\n"
    )
    found = blocks(page)
    assert [(b.language, b.output) for b in found] == [("python", "1\n"), ("python", None)]


def test_console_lines_join_continuations_and_skip_output() -> None:
    source = "$ steadyflow run a.py \\\n    --stream\nsome output\n$ make demo\n"
    assert command_lines(source, prompt=True) == ["steadyflow run a.py --stream", "make demo"]


def test_an_unknown_command_or_option_is_refused() -> None:
    with pytest.raises(AssertionError, match="no command"):
        parse(words("no-such-command x"))
    with pytest.raises(Exception, match="--no-such-flag"):
        parse(words("run agent.py --no-such-flag"))
    with pytest.raises(AssertionError, match="--nope"):
        check_synopsis(words("sessions list [--nope X]"))


def test_a_valid_command_and_synopsis_pass() -> None:
    parse(words('run agent.py "Where is order 812?" --stream'))
    parse(words("emulate --fault 429@1,retry_after=2 --port 0"))
    check_synopsis(words("sessions list [--app A] [--user U]"))


def test_block_ids_name_file_and_line() -> None:
    from ._blocks import ROOT

    block = Block(ROOT / "docs" / "retries.md", 17, "python", "")
    assert block.id == "docs/retries.md:17"


def test_a_console_transcript_keeps_each_commands_output() -> None:
    source = "$ steadyflow --version\nsteadyflow 0.1.0\n$ make demo\n"
    assert transcript(source) == [("steadyflow --version", ["steadyflow 0.1.0"]), ("make demo", [])]
