"""The fenced blocks of the README and the docs, as test cases (Sybil parses them).

A case is one python block (with the text block that shows its output, when
one follows it directly) or one shell block. ``test_code_blocks`` says what
each kind must satisfy.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from sybil import Example, Sybil
from sybil.parsers.markdown import CodeBlockParser

ROOT = Path(__file__).resolve().parents[2]
PYTHON = "python"
OUTPUT = ("text", "output")
SHELL = ("console", "bash")


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its language and its text."""

    path: Path
    line: int
    language: str
    source: str
    output: str | None = None  # for python: the output block right after it

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def documents() -> list[Path]:
    """The README and every page of the site."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _never(example: Example) -> None:  # pragma: no cover - blocks are run by the tests
    raise AssertionError("the docs tests run blocks themselves")


_SYBIL = Sybil(
    parsers=[CodeBlockParser(lang, evaluator=_never) for lang in (PYTHON, *OUTPUT, *SHELL)]
)


def blocks(path: Path) -> list[Block]:
    """The python and shell blocks of one document, each python block with its output."""
    document = _SYBIL.parse(path)
    examples = sorted(document, key=lambda e: e.region.start)
    found: list[Block] = []
    for index, example in enumerate(examples):
        language = str(example.region.lexemes["arguments"]).strip()
        if language in OUTPUT:
            continue
        output = None
        following = examples[index + 1] if index + 1 < len(examples) else None
        if language == PYTHON and following is not None:
            between = document.text[example.region.end : following.region.start]
            if not between.strip() and str(following.region.lexemes["arguments"]) in OUTPUT:
                output = str(following.region.parsed)
        source = str(example.region.parsed)
        found.append(Block(path, example.line, language, source, output))
    return found


def all_blocks(language: str | tuple[str, ...]) -> list[Block]:
    """Every block of these languages in the README and the docs."""
    wanted = (language,) if isinstance(language, str) else language
    return [b for path in documents() for b in blocks(path) if b.language in wanted]


def placeholders(source: str) -> list[int]:
    """Lines holding ``...`` as code (a placeholder), not as ``tuple[int, ...]``."""
    tree = ast.parse(source)
    in_subscripts = {
        id(node)
        for sub in ast.walk(tree)
        if isinstance(sub, ast.Subscript)
        for node in ast.walk(sub.slice)
    }
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and node.value is Ellipsis
        and id(node) not in in_subscripts
    ]
