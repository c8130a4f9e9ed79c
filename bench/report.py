"""The results table: ratios against the best peer in each row, and whether we met the target.

``publish`` writes ``latest.json`` (raw results plus the summary), prints the
Markdown, puts it into ``bench/README.md`` between the results markers, and
draws the plots. Every "ratio" reads "how many times better steadyflow is"
(best peer's figure divided by ours), except the history rows, whose figure
is each side's own growth (turn at the largest size / turn at 0 events).

A ``steadyflow @<sha>`` baseline side (``--baseline``) gets its own column
after ours, never counts as a peer, and the per-call, peak-RSS, CPU-per-run
and streaming rows add "vs baseline": ours / baseline, so ``1.12x`` is 12%
more than the baseline and below ``1.00x`` is an improvement.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .sides import BASELINE_PREFIX, OURS, PEERS
from .storm.table import storm_table
from .summary import summarize_run

__all__ = ["README_END", "README_START", "Row", "publish", "render", "rows"]

README_START = "<!-- results:start -->"
README_END = "<!-- results:end -->"
PEER_NAMES = [p.name for p in PEERS]
VERSUS_BASELINE = "vs baseline"


@dataclass(frozen=True)
class Row:
    """One line of the table."""

    scenario: str
    cells: dict[str, str]
    best: str
    ratio: str
    target: str
    met: bool | None
    versus_baseline: str = ""


def _us(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    if seconds >= 0.1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def _kb(value: float | None) -> str:
    if value is None:
        return "n/a"
    if value >= 1024 * 1024:
        return f"{value / 1024 / 1024:.1f} MB"
    return f"{value / 1024:.1f} KB"


def _cell(entry: dict[str, Any] | None, fmt: Callable[[Any], str]) -> str:
    if entry is None:
        return "—"
    if entry["value"] is None:
        why = entry.get("why_not")
        if why and why.startswith("n/a"):
            return str(why)  # the baseline lacks what the scenario needs
        return f"— ({why})" if why else "—"
    return fmt(entry["value"])


def baseline_name(per_side: dict[str, Any]) -> str | None:
    """The ``steadyflow @<sha>`` side among ``per_side``'s keys, if one was measured."""
    return next((name for name in per_side if name.startswith(BASELINE_PREFIX)), None)


def _side_names(per_side: dict[str, Any]) -> list[str]:
    """Ours, the baseline (when measured), every peer."""
    base = baseline_name(per_side)
    return [OURS.name, *([base] if base else []), *PEER_NAMES]


def _cells(per_side: dict[str, Any], fmt: Callable[[Any], str]) -> dict[str, str]:
    """A row's cell per side (``_side_names``)."""
    return {name: _cell(per_side.get(name), fmt) for name in _side_names(per_side)}


def _figure(per_side: dict[str, Any], name: str, value: Callable[[Any], float | None]) -> Any:
    entry = (per_side.get(name) or {}).get("value")
    return None if entry is None else value(entry)


def _versus_baseline(per_side: dict[str, Any], value: Callable[[Any], float | None]) -> str:
    """Ours / the baseline's figure (``1.12x`` = 12% more); blank without a baseline."""
    base = baseline_name(per_side)
    if base is None:
        return ""
    ours, theirs = _figure(per_side, OURS.name, value), _figure(per_side, base, value)
    return f"{ours / theirs:.2f}x" if ours is not None and theirs else "n/a"


def _best_peer(
    per_side: dict[str, Any], value: Callable[[Any], float | None]
) -> tuple[str, float] | None:
    figures = [
        (name, v)
        for name, entry in per_side.items()
        if name in PEER_NAMES and entry["value"] is not None
        for v in [value(entry["value"])]
        if v is not None
    ]
    return min(figures, key=lambda item: item[1]) if figures else None


def _versus_best(
    label: str,
    per_side: dict[str, Any],
    value: Callable[[Any], float | None],
    fmt: Callable[[float | None], str],
    target: str,
    factor: float | None,
    *,
    baseline: bool = False,
) -> Row:
    """A row where less is better and we must beat the best peer ``factor`` times.

    ``factor`` None makes a detail row: the ratio is shown, nothing is judged.
    ``baseline`` adds ours / the baseline's figure.
    """
    cells = _cells(per_side, lambda v: fmt(value(v)))
    versus = _versus_baseline(per_side, value) if baseline else ""
    ours_value = _figure(per_side, OURS.name, value)
    best = _best_peer(per_side, value)
    if best is None or not ours_value:
        return Row(label, cells, "n/a", "n/a", target, None, versus)
    ratio = best[1] / ours_value
    met = None if factor is None else ratio >= factor
    best_text = f"{best[0]} {fmt(best[1])}"
    return Row(label, cells, best_text, f"{ratio:.1f}x", target, met, versus)


def _growth_row(label: str, per_side: dict[str, Any], limit: float) -> Row:
    def text(value: dict[str, Any]) -> str:
        turn = value["turn_s"]
        first, last = turn[min(turn, key=int)], turn[max(turn, key=int)]
        return f"{value['growth']:.1f}x ({_us(first)} → {_us(last)})"

    cells = _cells(per_side, text)
    ours = per_side.get(OURS.name, {}).get("value")
    best = _best_peer(per_side, lambda v: v["growth"])
    best_text = f"{best[0]} {best[1]:.1f}x" if best else "n/a"
    if ours is None:
        return Row(label, cells, best_text, "n/a", f"<= {limit:g}x", None)
    size = f"{ours['largest']:,}"
    target = f"turn at {size} events <= {limit:g}x turn at 0"
    return Row(label, cells, best_text, f"{ours['growth']:.1f}x", target, ours["growth"] <= limit)


def _streaming_rows(summary: dict[str, Any]) -> list[Row]:
    off, on = summary["streaming_off"], summary["streaming_on"]
    cells_off, cells_on = _cells(off, _us), _cells(on, _us)
    ours_off = off.get(OURS.name, {}).get("value")
    ours_on = on.get(OURS.name, {}).get("value")
    best_off = _best_peer(off, lambda v: v)
    best_on = _best_peer(on, lambda v: v)
    row_off = Row(
        "Streaming: CPU per chunk, retries off",
        cells_off,
        f"{best_off[0]} {_us(best_off[1])}" if best_off else "n/a",
        f"{best_off[1] / ours_off:.1f}x" if best_off and ours_off else "n/a",
        "< 20 µs per chunk",
        None if ours_off is None else ours_off < 20e-6,
        _versus_baseline(off, lambda v: v),
    )
    within = ours_on / ours_off - 1 if ours_on and ours_off else None
    row_on = Row(
        "Streaming: CPU per chunk, retries on",
        cells_on,
        f"{best_on[0]} {_us(best_on[1])}" if best_on else "n/a",
        "n/a" if within is None else f"on/off {within:+.1%}",
        "< 20 µs; within 5% of off",
        None if within is None else bool(ours_on < 20e-6 and within <= 0.05),
        _versus_baseline(on, lambda v: v),
    )
    return [row_off, row_on]


def _cpu_per_run(by_runs: dict[str, Any], runs: str) -> float | None:
    """CPU seconds per invocation when ``runs`` ran together."""
    entry = by_runs.get(runs) or {}
    return None if entry.get("cpu_s") is None else float(entry["cpu_s"] / int(runs))


def _wall_row(rss: dict[str, Any], ours: dict[str, Any]) -> Row:
    """Wall time at the most runs; scaling is judged on CPU per run, which load cannot skew."""
    sizes = sorted(ours, key=int)
    small, large = sizes[0], sizes[-1]

    def text(value: dict[str, Any]) -> str:
        wall = (value.get(large) or {}).get("wall_s")
        return f"{_us(wall)} wall, {_us(_cpu_per_run(value, large))} CPU/run"

    cells = _cells(rss, text)
    versus = _versus_baseline(rss, lambda v: _cpu_per_run(v, large))
    versus = versus and f"CPU/run {versus}"
    ideal = ours[large]["ideal_wall_s"]
    label = f"Wall time, {int(large):,} runs (ideal {ideal:.2f} s)"
    best = _best_peer(rss, lambda v: (v.get(large) or {}).get("wall_s"))
    best_text = f"{best[0]} {_us(best[1])}" if best else "n/a"
    target = "CPU per run grows <= 1.5x with 10x the runs"
    if small == large:
        return Row(label, cells, best_text, "n/a", target + " (full run)", None, versus)
    growth = (_cpu_per_run(ours, large) or 0.0) / (_cpu_per_run(ours, small) or 1e-9)
    ratio = f"CPU/run x{growth:.2f} from {int(small):,} to {int(large):,} runs"
    return Row(label, cells, best_text, ratio, target, growth <= 1.5, versus)


def _concurrency_rows(summary: dict[str, Any]) -> list[Row]:
    rss = summary["concurrency_rss"]
    ours = rss.get(OURS.name, {}).get("value") or {}
    if not ours:
        return []
    largest = max(ours, key=int)
    out = [
        _versus_best(
            f"Peak RSS per run, {int(largest):,} concurrent two-step runs (50 ms model)",
            rss,
            lambda v: (v.get(largest) or {}).get("bytes_per_run"),
            _kb,
            "<= 1/4 of the best peer",
            4.0,
            baseline=True,
        ),
        _wall_row(rss, ours),
    ]
    traced = summary["concurrency_tracemalloc"]
    ours_traced = traced.get(OURS.name, {}).get("value")
    if ours_traced:
        size = max(ours_traced, key=int)
        out.append(
            _versus_best(
                f"Python heap peak per run (tracemalloc), {int(size):,} runs",
                traced,
                lambda v: (v.get(size) or {}).get("bytes_per_run"),
                _kb,
                "(detail)",
                None,
            )
        )
    return out


def rows(summary: dict[str, Any]) -> list[Row]:
    """Every table row, in the issue's order."""
    ten = ">= 10x less than the best peer"
    out = [
        _versus_best("1. One-step text turn: CPU per model call", summary["one_step"],
                     lambda v: v, _us, ten, 10.0, baseline=True),
        _versus_best("2. Two-step tool turn: CPU per model call", summary["two_step"],
                     lambda v: v, _us, ten, 10.0, baseline=True),
        _growth_row("3. History growth, in-memory store", summary["history_memory"], 2.0),
        _growth_row("3. History growth, SQLite store", summary["history_sqlite"], 3.0),
    ]  # fmt: skip
    numbered = _concurrency_rows(summary)
    out += [replace(r, scenario="4. " + r.scenario) for r in numbered]
    out.append(
        _versus_best("5. Import of the agent API: CPU time", summary["import"],
                     lambda v: v["cpu_s"], _us, ">= 5x faster than the fastest peer", 5.0)
    )  # fmt: skip
    out.append(
        _versus_best("5. Import: resident memory added", summary["import"],
                     lambda v: v["rss_kb"] * 1024, _kb, "(detail)", None)
    )  # fmt: skip
    packages = summary["packages"]
    out.append(
        _versus_best("5. Installed packages (core install)", packages, lambda v: float(v),
                     lambda v: "n/a" if v is None else f"{v:.0f}", "(detail)", None)
    )  # fmt: skip
    out += [replace(r, scenario="6. " + r.scenario) for r in _streaming_rows(summary)]
    return out


def _mark(met: bool | None) -> str:
    return {True: "yes", False: "**no**", None: ""}[met]


def _table(table_rows: list[Row]) -> str:
    base = next((n for row in table_rows for n in row.cells if n.startswith(BASELINE_PREFIX)), None)
    columns = [OURS.name, *([base, VERSUS_BASELINE] if base else []), *PEER_NAMES]
    head = ["Scenario", *columns, "Best peer", "Ratio", "Target", "Met"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in table_rows:
        cells = {**row.cells, VERSUS_BASELINE: row.versus_baseline}
        shown = [row.scenario, *(cells.get(n, "—") for n in columns), row.best, row.ratio]
        lines.append("| " + " | ".join([*shown, row.target, _mark(row.met)]) + " |")
    return "\n".join(lines)


def _header(meta: dict[str, Any]) -> str:
    m = meta["machine"]
    versions = ", ".join(f"{k} {v}" for k, v in meta["versions"].items())
    state = "working tree with uncommitted changes in src/" if meta["src_dirty"] else "clean"
    load = f"{m['load_at_start'][0]:.1f} → {meta.get('load_at_end', [float('nan')])[0]:.1f}"
    baseline = meta.get("baseline")
    against = (
        f"\nBaseline: `{baseline['side']}` is steadyflow at commit `{baseline['commit'][:12]}`, "
        f"measured in the same rounds (not a peer); {VERSUS_BASELINE} = ours / baseline."
        if baseline
        else ""
    )
    return (
        f"Measured {meta['date']} ({meta['profile']} profile, {meta.get('seconds', '?')} s) "
        f"at commit `{meta['commit'][:12]}` ({state}).\n"
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gb']} GB, {m['os']}, "
        f"Python {m['python']}; 1-minute load average {load}.\n"
        f"Versions: {versions}.{against}"
    )


def _notes(summary: dict[str, Any]) -> str:
    lines = ["What each side does per turn (one-step / concurrency scenarios):", ""]
    for name in _side_names(summary["one_step"]):
        entry = summary["one_step"].get(name)
        if entry and entry.get("note"):
            lines.append(f"- {name}: {entry['note']}")
    return "\n".join(lines)


def render(raw: dict[str, Any]) -> str:
    """The Markdown block for ``raw`` (with ``raw["summary"]`` filled in)."""
    summary = raw["summary"]
    parts = [_header(raw["meta"]), _table(rows(summary)), _notes(summary)]
    if raw.get("storm"):
        title = "#### 7. Retry storm (steadyflow's retry loop, virtual clock)"
        parts += [title, storm_table(raw["storm"])]
    return "\n\n".join(parts) + "\n"


def _update_readme(readme: Path, block: str) -> None:
    text = readme.read_text()
    start, end = text.find(README_START), text.find(README_END)
    if start < 0 or end < start:
        raise ValueError(f"{readme} has no {README_START} ... {README_END} block")
    readme.write_text(text[: start + len(README_START)] + "\n" + block + text[end:])


def publish(raw: dict[str, Any], results: Path, readme: Path | None, *, draw: bool = True) -> None:
    """Write latest.json and (with ``draw``) the plots, print the table, update the README."""
    raw["summary"] = summarize_run(raw)
    results.mkdir(parents=True, exist_ok=True)
    (results / "latest.json").write_text(json.dumps(raw, indent=1) + "\n")
    block = render(raw)
    print(block)
    if readme is not None:
        _update_readme(readme, block)
    if not draw:
        return
    try:
        from .plots import draw_all
    except ImportError as error:  # matplotlib is in the bench extra
        print(f"no plots ({error}); pip install -e '.[bench]'", file=sys.stderr)
        return
    draw_all(raw, results)
