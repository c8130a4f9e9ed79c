"""One PNG per scenario in ``bench/results/``, drawn from ``latest.json``'s data.

matplotlib comes with the ``bench`` extra (``pip install -e '.[bench]'``);
the Agg backend draws without a display. A ``--baseline`` side is drawn
next to ours in a paler green; storm policies that did not run are left out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.axes import Axes

from .sides import BASELINE_PREFIX, OURS, PEERS

__all__ = ["draw_all"]

PEER_NAMES = [p.name for p in PEERS]
COLORS = {"steadyflow": "#1b7f3b", "google-adk": "#4285f4", "openai-agents": "#444444"}
COLORS["pydantic-ai"] = "#e0529c"
BASELINE_COLOR = "#8fd19e"


def _sides(per_side: dict[str, Any]) -> list[str]:
    baseline = [name for name in per_side if name.startswith(BASELINE_PREFIX)]
    return [OURS.name, *baseline[:1], *PEER_NAMES]


def _color(side: str) -> str:
    return COLORS.get(side, BASELINE_COLOR)


def _value(per_side: dict[str, Any], side: str) -> Any:
    entry = per_side.get(side)
    return None if entry is None else entry["value"]


def _bars(ax: Axes, per_side: dict[str, Any], pick: Any, unit: str, scale: float) -> None:
    names, heights = [], []
    for side in _sides(per_side):
        value = _value(per_side, side)
        figure = pick(value) if value is not None else None
        if figure is not None:
            names.append(side)
            heights.append(figure * scale)
    bars = ax.bar(names, heights, color=[_color(n) for n in names])
    ax.bar_label(bars, labels=[f"{h:,.1f}" for h in heights], fontsize=8)
    ax.set_ylabel(unit)
    ax.set_yscale("log")


def _save(fig: Any, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _per_call(summary: dict[str, Any], key: str, title: str, out: Path) -> None:
    fig, ax = plt.subplots(figsize=(6.5, 4))
    _bars(ax, summary[key], lambda v: v, "CPU µs per model call (log)", 1e6)
    ax.set_title(title)
    _save(fig, out / f"{key}.png")


def _history(summary: dict[str, Any], key: str, title: str, out: Path) -> None:
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for side in _sides(summary[key]):
        value = _value(summary[key], side)
        if value is None:
            continue
        sizes = sorted(value["turn_s"], key=int)
        xs = [max(int(s), 1) for s in sizes]
        ys = [value["turn_s"][s] * 1e3 for s in sizes]
        ax.plot(xs, ys, marker="o", label=side, color=_color(side))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("events already in the session (0 drawn at 1)")
    ax.set_ylabel("CPU ms for one more turn (log)")
    ax.set_title(title)
    ax.legend()
    _save(fig, out / f"{key}.png")


def _concurrency(summary: dict[str, Any], out: Path) -> None:
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    rss = summary["concurrency_rss"]
    ours = _value(rss, OURS.name) or {}
    largest = max(ours, key=int) if ours else None
    if largest is not None:
        pick = lambda v: (v.get(largest) or {}).get("bytes_per_run")  # noqa: E731
        _bars(left, rss, pick, "KB of peak RSS per run (log)", 1 / 1024)
        left.set_title(f"Memory, {int(largest):,} concurrent two-step runs")
        wall = lambda v: (v.get(largest) or {}).get("wall_s")  # noqa: E731
        _bars(right, rss, wall, "wall seconds (log)", 1.0)
        right.axhline(ours[largest]["ideal_wall_s"], color="gray", linestyle="--", label="ideal")
        right.legend()
        right.set_title("Wall time (50 ms model, 2 steps)")
    _save(fig, out / "concurrency.png")


def _imports(summary: dict[str, Any], out: Path) -> None:
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    _bars(left, summary["import"], lambda v: v["cpu_s"], "CPU ms to import (log)", 1e3)
    left.set_title("Import of the agent API")
    packages = summary["packages"]
    _bars(right, packages, lambda v: float(v), "installed distributions (log)", 1.0)
    right.set_title("Packages in a fresh install")
    _save(fig, out / "import.png")


def _streaming(summary: dict[str, Any], out: Path) -> None:
    fig, ax = plt.subplots(figsize=(7.5, 4))
    labels, off, on = [], [], []
    for side in _sides(summary["streaming_off"]):
        a, b = _value(summary["streaming_off"], side), _value(summary["streaming_on"], side)
        if a is None:
            continue
        labels.append(side)
        off.append(a * 1e6)
        on.append(b * 1e6 if b is not None else 0.0)
    xs = range(len(labels))
    ax.bar([x - 0.2 for x in xs], off, width=0.4, label="retries off", color="#888888")
    ax.bar([x + 0.2 for x in xs], on, width=0.4, label="retries on", color="#1b7f3b")
    ax.set_xticks(list(xs), labels)
    ax.axhline(20, color="red", linestyle="--", label="target 20 µs")
    ax.set_ylabel("CPU µs per streamed chunk")
    ax.set_title("Streaming: cost of one more chunk (0 = not available)")
    ax.legend()
    _save(fig, out / "streaming.png")


def _storm(storm: dict[str, Any], out: Path) -> None:
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    markers = "osD^vP*X"
    ran = [policy for policy in storm["policies"] if "skipped" not in policy]
    for index, policy in enumerate(ran):
        x, y = policy["attempts_per_success"] or 0.0, policy["success_rate"] * 100
        ax.scatter([x], [y], s=70, marker=markers[index % len(markers)], label=policy["policy"])
    ax.legend(fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("provider attempts per successful call, log (less waste to the left)")
    ax.set_ylabel("calls served, % (more is higher)")
    s = storm["settings"]
    shape = f"{s['overload']:g}x a {s['capacity']:g}/s provider, {s['seconds']:g} s"
    ax.set_title(f"Retry storm: {shape}")
    ax.grid(alpha=0.3)
    _save(fig, out / "storm.png")


def draw_all(raw: dict[str, Any], out: Path) -> None:
    """Draw every scenario's PNG into ``out``."""
    summary = raw["summary"]
    _per_call(summary, "one_step", "1. One-step text turn", out)
    _per_call(summary, "two_step", "2. Two-step tool turn", out)
    _history(summary, "history_memory", "3. History growth, in-memory store", out)
    _history(summary, "history_sqlite", "3. History growth, SQLite store", out)
    _concurrency(summary, out)
    _imports(summary, out)
    _streaming(summary, out)
    if raw.get("storm", {}).get("settings"):
        _storm(raw["storm"], out)
