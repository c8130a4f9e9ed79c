"""The README is the landing page: short, its links resolve, its quickstart is a console block."""

from __future__ import annotations

import re

from ._blocks import ROOT, blocks

README = ROOT / "README.md"
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


def test_readme_stays_a_landing_page() -> None:
    assert len(README.read_text().splitlines()) < 250


def test_every_relative_link_of_the_readme_names_a_file_of_the_repository() -> None:
    targets = [m.group(1) for m in LINK.finditer(README.read_text())]
    relative = [t for t in targets if not re.match(r"[a-z]+:", t)]
    assert relative, "the README links into the docs"
    missing = [t for t in relative if not (ROOT / t).exists()]
    assert not missing


def test_quickstart_is_a_console_block_starting_with_the_two_commands() -> None:
    text = README.read_text()
    quickstart = text.index("## Quickstart")
    first = next(b for b in blocks(README) if text.index(b.source) > quickstart)
    assert first.language == "console"
    commands = [line.split("#")[0].strip() for line in first.source.splitlines()]
    assert commands[:2] == ["$ make demo", "$ make test"]
