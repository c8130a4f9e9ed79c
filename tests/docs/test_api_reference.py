"""The API reference documents every public name, each with a docstring.

Public names are the ``__all__`` of ``steadyflow``, of each public subpackage
(no underscore in its path) and of the provider modules users import from.
A name is documented when a ``::: module`` directive under ``docs/api/``
renders it (mkdocstrings renders a module's ``__all__``), directly or as a
re-export of the same object, and griffe, which the site is built with,
finds a docstring on it: its own (for a constant, the string right after
it), or an entry in the ``Attributes:`` section of the docstring of the
module that exports it (how ``steadyflow.telemetry`` documents its span
attribute names). A failure lists the names to document.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import griffe

from ._blocks import ROOT

API_PAGES = ROOT / "docs" / "api"
PUBLIC_MODULES = (
    "steadyflow.models.anthropic",
    "steadyflow.models.gemini",
    "steadyflow.models.openai",
    "steadyflow.models.openai_responses",
)


@cache
def package() -> Any:
    return griffe.load("steadyflow", search_paths=[str(ROOT / "src")], resolve_aliases=True)


def public_modules() -> Iterator[Any]:
    """``steadyflow``, its public subpackages, and ``PUBLIC_MODULES``."""

    def walk(module: Any) -> Iterator[Any]:
        yield module
        for name, sub in module.modules.items():
            if not name.startswith("_") and sub.is_init_module:
                yield from walk(sub)

    yield from walk(package())
    for path in PUBLIC_MODULES:
        yield package()[path.removeprefix("steadyflow.")]


def exports(module: Any) -> list[str]:
    return [e if isinstance(e, str) else e.name for e in (module.exports or ())]


def section_documents(module: Any, name: str) -> bool:
    """Whether the module docstring's ``Attributes:`` section describes ``name``."""
    if module.docstring is None:
        return False
    return any(
        section.kind.value == "attributes"
        and any(item.name == name and item.description.strip() for item in section.value)
        for section in module.docstring.parse("google")
    )


def target(module: Any, name: str) -> Any:
    member = module[name]
    return member.final_target if member.is_alias else member


def has_docstring(module: Any, name: str) -> bool:
    """A docstring of its own, or (for a constant) a line in its module's ``Attributes:``."""
    doc = target(module, name).docstring
    return bool(doc and doc.value.strip()) or section_documents(module, name)


def directives() -> list[str]:
    """The objects named by ``::: path`` lines of the API pages."""
    found = []
    for page in sorted(API_PAGES.rglob("*.md")):
        found += re.findall(r"^::: (\S+)", page.read_text(), flags=re.MULTILINE)
    return found


def rendered() -> set[str]:
    """Canonical paths of every object the API pages render at top level."""
    paths: set[str] = set()
    for path in directives():
        obj = package()[path.removeprefix("steadyflow.")] if path != "steadyflow" else package()
        obj = obj.final_target if obj.is_alias else obj
        paths.add(obj.path)
        if obj.is_module:
            paths.update(target(obj, name).path for name in exports(obj))
    return paths


def test_every_directive_names_a_real_object() -> None:
    assert directives()
    for path in directives():
        if path != "steadyflow":
            package()[path.removeprefix("steadyflow.")]


def test_every_public_name_is_in_the_api_reference() -> None:
    shown = rendered()
    missing = [
        f"{module.path}.{name}"
        for module in public_modules()
        for name in exports(module)
        if target(module, name).path not in shown
    ]
    assert not missing, "add to a docs/api/ page: " + ", ".join(missing)


def test_every_public_name_has_a_docstring() -> None:
    undocumented = sorted(
        {
            f"{module.path}.{name}"
            for module in public_modules()
            for name in exports(module)
            if not has_docstring(module, name)
        }
    )
    assert not undocumented, "write a docstring for: " + ", ".join(undocumented)
