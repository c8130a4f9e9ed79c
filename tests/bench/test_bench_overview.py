"""The short results table of the README and docs/benchmarks.md: generated, never typed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from bench.overview import (
    OVERVIEW_END,
    OVERVIEW_PAGES,
    OVERVIEW_START,
    render_overview,
    update_pages,
)

ROOT = Path(__file__).resolve().parents[2]
LATEST = ROOT / "bench" / "results" / "latest.json"


def block_of(page: Path) -> str:
    text = page.read_text()
    start, end = text.index(OVERVIEW_START) + len(OVERVIEW_START), text.index(OVERVIEW_END)
    return text[start:end].strip("\n")


@pytest.mark.parametrize("page", OVERVIEW_PAGES)
def test_each_pages_table_is_the_one_latest_json_gives(page: str) -> None:
    expected = render_overview(json.loads(LATEST.read_text())).strip("\n")
    assert block_of(ROOT / page) == expected, (
        f"{page} is out of date: run `python -m bench.run --render bench/results/latest.json`"
    )


def test_the_table_shows_ours_and_the_best_peer_with_the_ratio() -> None:
    table = render_overview(json.loads(LATEST.read_text()))
    (one_step,) = [line for line in table.splitlines() if line.startswith("| one-step turn")]
    ours, peer = [cell.strip() for cell in one_step.strip("|").split("|")][1:]
    assert ours.endswith("µs") and peer.endswith("x)")
    assert "target" not in table and "not met" not in table


def test_update_pages_rewrites_only_the_blocks(tmp_path: Path) -> None:
    for page in OVERVIEW_PAGES:
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / page, tmp_path / page)
        text = (tmp_path / page).read_text()
        start, end = text.index(OVERVIEW_START) + len(OVERVIEW_START), text.index(OVERVIEW_END)
        (tmp_path / page).write_text(text[:start] + "\nstale\n" + text[end:])
    raw = json.loads(LATEST.read_text())
    update_pages(raw, tmp_path)
    for page in OVERVIEW_PAGES:
        assert (tmp_path / page).read_text() == (ROOT / page).read_text()
