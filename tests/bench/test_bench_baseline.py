"""``--baseline COMMIT``: a second steadyflow side in the same run, and code that lacks an API."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from bench.report import publish, render, rows
from bench.sides import OURS, baseline_side, side_named
from bench.storm.__main__ import main as storm_main
from bench.storm.policies import STORM_POLICIES
from bench.storm.simulate import StormSettings, simulate
from bench.storm.table import storm_table
from bench.summary import summarize_run
from bench.worker import run_scenario

import steadyflow.retry
from bench import procs, run, scenarios

BASE = "steadyflow @abc1234"
META = {
    "date": "2026-01-01", "profile": "quick", "commit": "f" * 40, "src_dirty": False,
    "versions": {"steadyflow": "0.1.0"}, "load_at_end": [1.0],
    "baseline": {"side": BASE, "commit": "abc1234" + "0" * 33},
    "machine": {"cpu": "cpu", "cores": 2, "memory_gb": 24, "os": "linux", "python": "3.11",
                "load_at_start": [1.0]},
}  # fmt: skip


def _call(seconds: float) -> dict[str, Any]:
    return {"per_call_s": {"cpu": {"median": seconds}}, "note": "n"}


def _memory(bytes_per_run: float, cpu_s: float) -> dict[str, Any]:
    return {
        "runs": 200,
        "peak_bytes_per_run": bytes_per_run,
        "wall_s": 0.2,
        "cpu_s": cpu_s,
        "ideal_wall_s": 0.1,
        "note": "n",
    }


def _raw() -> dict[str, Any]:
    """Ours 12% slower per call than the baseline, which beats every peer: still not a peer."""
    return {
        "meta": META,
        "runs": {
            "one_step": {
                "steadyflow": [_call(112e-6)],
                BASE: [_call(100e-6)],
                "openai-agents": [_call(1.12e-3)],
            },
            "two_step": {
                "steadyflow": [_call(90e-6)],
                BASE: [{"skipped": "n/a at abc1234: AttributeError: no tools"}],
                "openai-agents": [_call(1.8e-3)],
            },
            "concurrency_rss": {
                "steadyflow": [_memory(15_000.0, 0.04)],
                BASE: [_memory(20_000.0, 0.05)],
                "openai-agents": [_memory(60_000.0, 0.4)],
            },
            "streaming_off": {
                "steadyflow": [{"per_chunk_s": {"cpu": 14e-6}, "note": "n"}],
                BASE: [{"per_chunk_s": {"cpu": 5.6e-6}, "note": "n"}],
            },
        },
        "packages": {
            "steadyflow": {"count": 7, "names": []},
            BASE: {"count": None, "why_not": "n/a at abc1234: counted for the tree only"},
        },
    }


def _row(prefix: str) -> Any:
    return next(r for r in rows(summarize_run(_raw())) if r.scenario.startswith(prefix))


def test_per_call_row_shows_the_baseline_and_ours_over_it():
    row = _row("1.")

    assert row.cells[BASE] == "100.0 µs"
    assert row.versus_baseline == "1.12x"


def test_the_baseline_is_not_a_peer_even_when_it_is_fastest():
    row = _row("1.")

    assert (row.best, row.ratio, row.met) == ("openai-agents 1.12 ms", "10.0x", True)


def test_memory_row_shows_ours_over_the_baselines_peak_rss():
    row = _row("4. Peak RSS")

    assert (row.versus_baseline, row.ratio) == ("0.75x", "4.0x")


def test_wall_row_compares_cpu_per_run_with_the_baseline():
    assert _row("4. Wall time").versus_baseline == "CPU/run 0.80x"


def test_streaming_row_compares_the_cost_per_chunk_with_the_baseline():
    row = _row("6. Streaming: CPU per chunk, retries off")

    assert (row.cells[BASE], row.versus_baseline) == ("5.6 µs", "2.50x")


def test_a_scenario_the_baseline_cannot_run_says_so_in_its_cell():
    row = _row("2.")

    assert row.cells[BASE] == "n/a at abc1234: AttributeError: no tools"
    assert row.versus_baseline == "n/a"


def test_packages_are_counted_for_the_tree_only():
    assert _row("5. Installed").cells[BASE] == "n/a at abc1234: counted for the tree only"


def test_rows_without_a_baseline_have_no_baseline_figure():
    raw = _raw()
    for per_side in [*raw["runs"].values(), raw["packages"]]:
        del per_side[BASE]

    table = rows(summarize_run(raw))

    assert all(BASE not in r.cells and r.versus_baseline == "" for r in table)


def test_publish_keeps_the_baselines_raw_runs_and_renders_its_column(tmp_path: Path):
    publish(_raw(), tmp_path, readme=None, draw=False)

    saved = json.loads((tmp_path / "latest.json").read_text())
    assert saved["runs"]["one_step"][BASE] == [_call(100e-6)]
    header, _, body = render(saved).partition("| Scenario |")
    assert "Baseline: `steadyflow @abc1234` is steadyflow at commit `abc12340000" in header
    assert body.startswith(" steadyflow | steadyflow @abc1234 | vs baseline | google-adk |")
    assert "| 100.0 µs | 1.12x |" in body


def test_a_baseline_side_is_named_by_its_commit():
    side = side_named(BASE)

    assert side == baseline_side("abc1234")
    assert (side.is_baseline, side.is_steadyflow, side.module) == (True, True, OURS.module)
    assert not OURS.is_baseline
    with pytest.raises(ValueError, match="unknown side"):
        side_named("steadyflow @")


async def test_baseline_code_lacking_an_api_is_reported_not_raised(monkeypatch):
    def lacking() -> Any:
        raise ImportError("cannot import name 'Runner' from 'steadyflow'")

    monkeypatch.setattr("bench.sides.sf_side.make_adapter", lacking)
    params = {"tools": False, "turns": 1, "warmup": 0}

    result = await run_scenario(BASE, "per_call", params)

    assert result["skipped"] == (
        "n/a at abc1234: ImportError: cannot import name 'Runner' from 'steadyflow'"
    )
    with pytest.raises(ImportError):
        await run_scenario(OURS.name, "per_call", params)


async def test_a_scenario_the_baseline_does_not_support_is_skipped_at_its_commit(monkeypatch):
    monkeypatch.setattr("bench.sides.sf_side.sqlite_service", lambda path: None)

    result = await run_scenario(BASE, "history", {"store": "sqlite", "sizes": [0], "reps": 1})

    assert result["skipped"] == "n/a at abc1234: no SQLite session store in this runtime yet"


def test_baseline_rotates_with_the_other_sides_and_imports_its_own_src(monkeypatch):
    seen: list[tuple[str, str | None]] = []

    def worker(python: Path, side: str, jobs: list[Any], env: dict[str, str], timeout: float):
        seen.append((side, env.get("PYTHONPATH")))
        return [{"skipped": "fake"} for _ in jobs]

    monkeypatch.setattr(procs, "run_worker", worker)
    monkeypatch.setattr(run, "_log", lambda message: None)
    profile = dataclasses.replace(scenarios.QUICK, rounds=2)
    sides = [OURS, baseline_side("abc1234")]

    runs = run._run_scenarios(profile, sides, {OURS.name: None, BASE: Path("/tmp/base/src")})

    ours, base = ("steadyflow", None), (BASE, "/tmp/base/src")
    assert seen == [ours, base, base, ours]
    assert len(runs["one_step"][BASE]) == 2


def _without_the_pacer(monkeypatch: pytest.MonkeyPatch) -> None:
    """``steadyflow.retry`` as at a commit from before ``ProviderPacer``."""
    lazy = steadyflow.retry.__getattr__

    def getattr_(name: str) -> Any:
        if name == "ProviderPacer":
            raise AttributeError(f"module 'steadyflow.retry' has no attribute {name!r}")
        return lazy(name)

    monkeypatch.delattr(steadyflow.retry, "ProviderPacer", raising=False)
    monkeypatch.setattr(steadyflow.retry, "__getattr__", getattr_)


def test_a_storm_policy_the_code_cannot_run_is_a_row_saying_why(monkeypatch):
    _without_the_pacer(monkeypatch)

    row = simulate(STORM_POLICIES["pacer"], StormSettings(capacity=2.0, seconds=1.0))

    assert row["skipped"] == "the measured steadyflow has no steadyflow.retry.ProviderPacer"


def test_a_storm_on_code_without_the_pacer_runs_the_other_policies(monkeypatch, capsys):
    _without_the_pacer(monkeypatch)

    assert storm_main(["--seconds", "2", "--capacity", "2"]) == 0

    result = json.loads(capsys.readouterr().out.split("BENCH_RESULT ", 1)[1])
    skipped = {p["policy"] for p in result["policies"] if "skipped" in p}
    assert skipped == {"pacer", "pacer, no headers"}
    assert all(p["calls"] > 0 for p in result["policies"] if "skipped" not in p)
    table = storm_table(result)
    assert "| pacer | n/a: the measured steadyflow has no steadyflow.retry.ProviderPacer |" in table


def test_a_storm_that_failed_is_a_note_not_a_crash(monkeypatch):
    def broken(seconds: float, capacity: float, env: dict[str, str]) -> Any:
        raise procs.ProbeError("exit 1: ImportError: cannot import name 'InMemoryRunner'")

    monkeypatch.setattr(procs, "run_storm", broken)
    monkeypatch.setattr(run, "_log", lambda message: None)

    storm = run._storm(scenarios.QUICK, None)

    assert storm_table(storm) == (
        "Not run: failed: exit 1: ImportError: cannot import name 'InMemoryRunner'"
    )
