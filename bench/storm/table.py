"""The storm's Markdown table, from ``python -m bench.storm``'s JSON (standard library only).

``bench.report`` renders it under the main table. A policy the measured code
could not run (``skipped``) gets a row saying why; a storm that did not run
at all (older code lacking what it needs, or a failed process) gets one
line instead of the table.
"""

from __future__ import annotations

from typing import Any

__all__ = ["storm_table"]


def _storm_row(p: dict[str, Any]) -> str:
    if "skipped" in p:
        return f"| {p['policy']} | n/a: {p['skipped']} |  |  |  |  |  |  | {p['description']} |"
    per = p["attempts_per_success"]
    return (
        f"| {p['policy']} | {p['calls']:,} | {p['succeeded']:,} | {p['success_rate']:.1%} "
        f"| {'n/a' if per is None else f'{per:.2f}'} | {p['p50_s']:.2f} s "
        f"| {p['p99_s']:.2f} s | {p['drained_at_s']:.1f} s | {p['description']} |"
    )


def storm_table(storm: dict[str, Any]) -> str:
    """The storm's table; a storm that did not run (older code, a failure) says why."""
    if "settings" not in storm:
        why = storm.get("skipped") or f"failed: {storm.get('error', '?')}"
        return f"Not run: {why}"
    s = storm["settings"]
    lines = [
        f"Provider of {s['capacity']:g} requests/s; calls arrive at {s['overload']:g}x that "
        f"for {s['seconds']:g} simulated seconds, then run until the last one ends.",
        "",
        "| Policy | Calls | Served | Success rate | Provider attempts per success | p50 | p99 "
        "| Last call ended at | What it does |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [_storm_row(p) for p in storm["policies"]]
    return "\n".join(lines)
