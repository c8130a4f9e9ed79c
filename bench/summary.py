"""From raw worker results to one number per side and scenario.

Each round's own median is taken first. Across rounds, a per-call time or an
import takes the fastest round: the shared machines have slow phases that
only ever add time (a whole round of a short job can fall in one), so the
fastest round is the closest to the framework's own cost, on every side
alike. Other figures take the median over rounds. Times are CPU seconds (see
``common``); a side whose run failed or skipped a scenario gets None, with
the reason kept next to it.
"""

from __future__ import annotations

import statistics
from typing import Any

__all__ = ["summarize_run"]


def _ok(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in results if "error" not in r and "skipped" not in r]


def _why_not(results: list[dict[str, Any]]) -> str | None:
    for result in results:
        if "skipped" in result:
            return str(result["skipped"])
        if "error" in result:
            return "failed: " + str(result["error"]).splitlines()[-1][:120]
    return None


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _per_side(runs: dict[str, Any], key: str, pick: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for side, results in runs.get(key, {}).items():
        good = _ok(results)
        out[side] = {
            "value": pick(good) if good else None,
            "why_not": None if good else _why_not(results),
            "note": good[0].get("note") if good else None,
        }
    return out


def _fastest(values: list[float]) -> float | None:
    return min(values) if values else None


def _per_call(good: list[dict[str, Any]]) -> float | None:
    return _fastest([r["per_call_s"]["cpu"]["median"] for r in good])


def _history(good: list[dict[str, Any]]) -> dict[str, Any]:
    sizes = list(good[0]["turn_s"])
    turn = {s: _median([r["turn_s"][s]["cpu"]["median"] for r in good]) for s in sizes}
    first, last = turn[sizes[0]], turn[sizes[-1]]
    growth = last / first if first and last is not None else None
    return {"turn_s": turn, "largest": int(sizes[-1]), "growth": growth}


def _streaming(good: list[dict[str, Any]]) -> float | None:
    return _median([r["per_chunk_s"]["cpu"] for r in good])


def _concurrency(good: list[dict[str, Any]]) -> dict[str, Any]:
    by_runs: dict[str, dict[str, float | None]] = {}
    for n in sorted({r["runs"] for r in good}):
        same = [r for r in good if r["runs"] == n]
        by_runs[str(n)] = {
            "bytes_per_run": _median([r["peak_bytes_per_run"] for r in same]),
            "wall_s": _median([r["wall_s"] for r in same]),
            "cpu_s": _median([r["cpu_s"] for r in same]),
            "ideal_wall_s": same[0]["ideal_wall_s"],
        }
    return by_runs


def _imports(probes: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for side, results in probes.items():
        good = [r for r in results if "error" not in r]
        out[side] = {
            "value": {
                "cpu_s": _fastest([r["cpu"] for r in good]),
                "wall_s": _median([r["wall"] for r in good]),
                "rss_kb": _median([r["rss_kb"] for r in good]),
            }
            if good
            else None,
            "why_not": None if good else _why_not(results),
        }
    return out


def summarize_run(raw: dict[str, Any]) -> dict[str, Any]:
    """One figure per side for every scenario of ``raw`` (see ``run.main``)."""
    runs = raw["runs"]
    return {
        "one_step": _per_side(runs, "one_step", _per_call),
        "two_step": _per_side(runs, "two_step", _per_call),
        "history_memory": _per_side(runs, "history_memory", _history),
        "history_sqlite": _per_side(runs, "history_sqlite", _history),
        "concurrency_rss": _per_side(runs, "concurrency_rss", _concurrency),
        "concurrency_tracemalloc": _per_side(runs, "concurrency_tracemalloc", _concurrency),
        "streaming_off": _per_side(runs, "streaming_off", _streaming),
        "streaming_on": _per_side(runs, "streaming_on", _streaming),
        "import": _imports(raw.get("imports", {})),
        "packages": {
            side: {"value": info["count"], "why_not": info.get("why_not")}
            for side, info in raw.get("packages", {}).items()
        },
    }
