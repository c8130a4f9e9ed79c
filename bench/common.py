"""Measuring helpers shared by every side: statistics, memory, timing.

Standard library only: this module runs in each peer's virtualenv as well
as in the project's. Times are taken twice: wall time, and the process's CPU
time, which stays honest on a shared machine where other processes steal the
cores (the tables use CPU time; wall time is kept in the JSON). Memory is
read from ``/proc`` (Linux): resident set size now, and the high-water mark
since ``reset_peak_rss()``.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Timing",
    "peak_rss_kb",
    "percentile",
    "reset_peak_rss",
    "rss_kb",
    "slope",
    "summarize",
    "time_async",
]


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation; NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summarize(samples: Sequence[float]) -> dict[str, float]:
    """Median, mean, p10/p90 and count of timing samples (seconds)."""
    return {
        "median": statistics.median(samples) if samples else math.nan,
        "mean": statistics.fmean(samples) if samples else math.nan,
        "p10": percentile(samples, 10),
        "p90": percentile(samples, 90),
        "n": float(len(samples)),
    }


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of ``ys`` against ``xs``."""
    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError(f"slope needs two or more paired points, got {len(xs)} and {len(ys)}")
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    num = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    den = sum((x - mean_x) ** 2 for x in xs)
    return num / den


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field} line")


def rss_kb() -> int:
    """This process's resident set size now, in KiB."""
    return _status_kb("VmRSS")


def reset_peak_rss() -> bool:
    """Reset the kernel's high-water mark of RSS; False when the kernel refuses."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def peak_rss_kb() -> int:
    """Highest RSS since the process started or since ``reset_peak_rss()``, in KiB."""
    return _status_kb("VmHWM")


@dataclass(frozen=True)
class Timing:
    """How long something took, in seconds.

    Attributes:
        wall: elapsed real time (includes time the OS gave to other processes).
        cpu: CPU time of this process, all threads (``time.process_time``).
    """

    wall: float
    cpu: float


async def time_async(action: Callable[[], Awaitable[object]]) -> tuple[Timing, object]:
    """Run ``action`` once; how long it took and its result."""
    cpu_start, wall_start = time.process_time(), time.perf_counter()
    result = await action()
    wall, cpu = time.perf_counter() - wall_start, time.process_time() - cpu_start
    return Timing(wall=wall, cpu=cpu), result
