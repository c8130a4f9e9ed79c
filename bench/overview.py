"""The short results table of ``README.md`` and ``docs/benchmarks.md``, from ``latest.json``.

The full table (every side, every target) lives in ``bench/README.md``; the
pages a user reads first show the few figures that compare steadyflow with
its best peer. Both come from the same summary, and ``publish`` rewrites
every block at once, so a page cannot show figures of another run than the
others (a test compares each block with ``render_overview(latest.json)``).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from .report import rows
from .sides import OURS

__all__ = ["OVERVIEW_END", "OVERVIEW_PAGES", "OVERVIEW_START", "render_overview", "update_pages"]

OVERVIEW_START = "<!-- bench-overview:start -->"
OVERVIEW_END = "<!-- bench-overview:end -->"
OVERVIEW_PAGES = ("README.md", "docs/benchmarks.md")
"""The pages holding the block, relative to the repository's root."""

_LABELS = {
    "1.": "one-step turn, CPU per model call",
    "2.": "two-step tool turn, CPU per model call",
    "3. History growth, in-memory store": "turn at 3,200 prior events / at 0, in memory",
    "3. History growth, SQLite store": "turn at 3,200 prior events / at 0, SQLite",
    "4. Peak RSS": "peak memory per run, 1,000 concurrent runs",
    "4. Wall time": "CPU per run, 100 -> 1,000 concurrent runs",
    "5. Import of the agent API": "`from steadyflow import LlmAgent, Runner`, CPU",
    "6. Streaming: CPU per chunk, retries off": "streaming, CPU per chunk, retries off",
    "6. Streaming: CPU per chunk, retries on": "streaming, CPU per chunk, retries on",
}
_COMPARED = ("1.", "2.", "4. Peak RSS", "5. Import", "6. Streaming: CPU per chunk, retries off")
"""Rows whose bracket says how many times the best peer's figure is steadyflow's."""


def _label(scenario: str) -> str | None:
    return next((text for key, text in _LABELS.items() if scenario.startswith(key)), None)


def _line(scenario: str, ours: str, best: str, ratio: str) -> str | None:
    label = _label(scenario)
    if label is None:
        return None
    if scenario.startswith("4. Wall time"):
        return f"| {label} | {ratio.replace('CPU/run ', '')} | |"
    peer = f"{best} ({ratio})" if scenario.startswith(_COMPARED) and ratio != "n/a" else best
    return f"| {label} | {ours} | {peer} |"


def render_overview(raw: dict[str, Any]) -> str:
    """The block for ``raw`` (``latest.json`` with its summary)."""
    meta = raw["meta"]
    machine = meta["machine"]
    day = datetime.fromisoformat(meta["date"]).date().isoformat()
    lines = [
        f"Measured {day} on a {machine['cores']}-core machine, CPU time (per-call times: "
        "each side's fastest round). In brackets: the best peer's figure over "
        "steadyflow's (above 1x, steadyflow takes less).",
        "",
        "| | steadyflow | best peer |",
        "|---|---|---|",
    ]
    for row in rows(raw["summary"]):
        line = _line(row.scenario, row.cells.get(OURS.name, "n/a"), row.best, row.ratio)
        if line is not None:
            lines.append(line)
    return "\n".join(lines) + "\n"


def _replace_block(text: str, block: str, where: str) -> str:
    start, end = text.find(OVERVIEW_START), text.find(OVERVIEW_END)
    if start < 0 or end < start:
        raise ValueError(f"{where} has no {OVERVIEW_START} ... {OVERVIEW_END} block")
    return text[: start + len(OVERVIEW_START)] + "\n" + block + text[end:]


def update_pages(raw: dict[str, Any], root: Path) -> None:
    """Rewrite the block of every page of ``OVERVIEW_PAGES`` under ``root``."""
    block = render_overview(raw)
    for page in OVERVIEW_PAGES:
        path = root / page
        path.write_text(_replace_block(path.read_text(), block, page))
