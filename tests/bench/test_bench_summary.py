from __future__ import annotations

from typing import Any

from bench.summary import summarize_run


def _per_call_round(seconds: float) -> dict[str, Any]:
    return {"per_call_s": {"cpu": {"median": seconds}}, "note": "fake"}


def _raw(rounds: list[float], probes: list[float]) -> dict[str, Any]:
    return {
        "runs": {"one_step": {"steadyflow": [_per_call_round(s) for s in rounds]}},
        "imports": {"steadyflow": [{"cpu": c, "wall": c, "rss_kb": 100.0} for c in probes]},
    }


def test_per_call_time_is_the_fastest_rounds_median():
    summary = summarize_run(_raw([2e-4, 1.2e-4, 2.1e-4], [0.2]))

    assert summary["one_step"]["steadyflow"]["value"] == 1.2e-4


def test_import_cpu_is_the_fastest_probe_and_wall_the_median():
    summary = summarize_run(_raw([1e-4], [0.25, 0.16, 0.24]))

    assert summary["import"]["steadyflow"]["value"]["cpu_s"] == 0.16
    assert summary["import"]["steadyflow"]["value"]["wall_s"] == 0.24


def test_a_failed_round_is_left_out_and_a_side_with_none_says_why():
    raw = _raw([1e-4], [0.2])
    raw["runs"]["one_step"]["steadyflow"].append({"error": "Traceback\nboom"})
    raw["runs"]["one_step"]["openai-agents"] = [{"error": "Traceback\nno model"}]

    summary = summarize_run(raw)

    assert summary["one_step"]["steadyflow"]["value"] == 1e-4
    assert summary["one_step"]["openai-agents"] == {
        "value": None,
        "why_not": "failed: no model",
        "note": None,
    }
