from __future__ import annotations

from typing import Any

import pytest
from bench.report import README_END, README_START, Row, publish, rows


def _entry(value: Any, why_not: str | None = None) -> dict[str, Any]:
    return {"value": value, "why_not": why_not, "note": "n"}


def _history(first: float, last: float) -> dict[str, Any]:
    return {"turn_s": {"0": first, "3200": last}, "largest": 3200, "growth": last / first}


def _summary(ours_call: float = 1e-4) -> dict[str, Any]:
    calls = {
        "steadyflow": _entry(ours_call),
        "google-adk": _entry(2e-3),
        "openai-agents": _entry(1e-3),
        "pydantic-ai": _entry(None, "failed: boom"),
    }
    runs = {"200": {"bytes_per_run": 10_000.0, "wall_s": 0.12, "ideal_wall_s": 0.1}}
    peer_runs = {"200": {"bytes_per_run": 64_000.0, "wall_s": 2.0, "ideal_wall_s": 0.1}}
    return {
        "one_step": calls,
        "two_step": calls,
        "history_memory": {"steadyflow": _entry(_history(1e-4, 1.5e-4)),
                           "google-adk": _entry(_history(1e-3, 0.1))},
        "history_sqlite": {"steadyflow": _entry(_history(1e-3, 5e-3))},
        "concurrency_rss": {"steadyflow": _entry(runs), "openai-agents": _entry(peer_runs)},
        "concurrency_tracemalloc": {},
        "streaming_off": {"steadyflow": _entry(10e-6), "openai-agents": _entry(2e-6)},
        "streaming_on": {"steadyflow": _entry(10.4e-6)},
        "import": {"steadyflow": _entry({"cpu_s": 0.1, "wall_s": 0.1, "rss_kb": 1000}),
                   "pydantic-ai": _entry({"cpu_s": 0.6, "wall_s": 0.6, "rss_kb": 5000})},
        "packages": {"steadyflow": _entry(7), "pydantic-ai": _entry(17)},
    }  # fmt: skip


def _row(table: list[Row], prefix: str) -> Row:
    return next(r for r in table if r.scenario.startswith(prefix))


def test_per_call_ratio_is_the_best_peer_over_ours():
    row = _row(rows(_summary()), "1.")

    assert (row.best, row.ratio, row.met) == ("openai-agents 1.00 ms", "10.0x", True)


def test_per_call_target_is_missed_below_ten_times():
    row = _row(rows(_summary(ours_call=2e-4)), "1.")

    assert (row.ratio, row.met) == ("5.0x", False)


def test_failed_side_shows_why_in_its_cell():
    row = _row(rows(_summary()), "1.")

    assert row.cells["pydantic-ai"] == "— (failed: boom)"


def test_history_rows_judge_our_own_growth():
    table = rows(_summary())

    memory, sqlite = _row(table, "3. History growth, in"), _row(table, "3. History growth, SQ")
    assert (memory.ratio, memory.met) == ("1.5x", True)
    assert (sqlite.ratio, sqlite.met) == ("5.0x", False)


def test_streaming_on_row_compares_retries_on_with_off():
    row = _row(rows(_summary()), "6. Streaming: CPU per chunk, retries on")

    assert (row.ratio, row.met) == ("on/off +4.0%", True)


def test_memory_row_needs_a_quarter_of_the_best_peer():
    row = _row(rows(_summary()), "4. Peak RSS")

    assert (row.ratio, row.met) == ("6.4x", True)


def test_publish_writes_json_and_replaces_only_the_readme_block(tmp_path, monkeypatch):
    monkeypatch.setattr("bench.report.summarize_run", lambda raw: _summary())
    readme = tmp_path / "README.md"
    readme.write_text(f"# Bench\n\nintro\n\n{README_START}\nold\n{README_END}\n\noutro\n")
    meta = {
        "date": "2026-01-01", "profile": "quick", "commit": "abc", "src_dirty": False,
        "versions": {"steadyflow": "0.1.0"}, "load_at_end": [1.0],
        "machine": {"cpu": "cpu", "cores": 2, "memory_gb": 24, "os": "linux",
                    "python": "3.11", "load_at_start": [1.0]},
    }  # fmt: skip

    publish({"meta": meta, "runs": {}}, tmp_path / "results", readme, draw=False)

    text = readme.read_text()
    assert (tmp_path / "results" / "latest.json").exists()
    assert "old" not in text
    assert text.startswith("# Bench\n\nintro\n") and text.endswith("\n\noutro\n")
    assert "| 1. One-step text turn" in text


def test_publish_refuses_a_readme_without_the_block(tmp_path, monkeypatch):
    monkeypatch.setattr("bench.report.summarize_run", lambda raw: _summary())
    readme = tmp_path / "README.md"
    readme.write_text("# no block\n")
    meta = {"date": "d", "profile": "q", "commit": "c", "src_dirty": False, "versions": {},
            "machine": {"cpu": "", "cores": 1, "memory_gb": 1, "os": "", "python": "",
                        "load_at_start": [0.0]}}  # fmt: skip

    with pytest.raises(ValueError, match="results:start"):
        publish({"meta": meta, "runs": {}}, tmp_path / "results", readme, draw=False)


def _wall(cpu: dict[str, float]) -> dict[str, Any]:
    return {
        n: {"bytes_per_run": 1.0, "wall_s": 1.0, "cpu_s": c, "ideal_wall_s": 0.1}
        for n, c in cpu.items()
    }


def test_wall_row_is_met_when_cpu_per_run_stays_flat():
    summary = _summary()
    summary["concurrency_rss"]["steadyflow"] = _entry(_wall({"100": 0.05, "1000": 0.5}))

    row = _row(rows(summary), "4. Wall time")

    assert (row.ratio, row.met) == ("CPU/run x1.00 from 100 to 1,000 runs", True)


def test_wall_row_is_missed_when_cpu_per_run_grows_with_the_runs():
    summary = _summary()
    summary["concurrency_rss"]["steadyflow"] = _entry(_wall({"100": 0.05, "1000": 2.0}))

    row = _row(rows(summary), "4. Wall time")

    assert row.met is False
