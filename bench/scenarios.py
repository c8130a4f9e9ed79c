"""What each run measures: the scenarios, their sizes per profile, and our targets.

``FULL`` is ``make bench`` (a few minutes); ``QUICK`` is ``make bench-quick``
(under a minute once the peers are installed, on an otherwise idle machine):
one round with fewer turns and repetitions, one import probe, 200 concurrent
runs instead of 1,000 measured first thing in the side's timing process
instead of a process of their own, no tracemalloc pass, a storm on a
provider of 4 instead of 20 requests per second, and SQLite history up to
800 events (filling a google-adk SQLite session with 3,200 events through
its API takes most of a minute by itself).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "FULL",
    "PROFILES",
    "QUICK",
    "TARGETS",
    "Profile",
    "Target",
    "memory_jobs",
    "timing_jobs",
]


@dataclass(frozen=True)
class Profile:
    """Sizes of one benchmark run."""

    name: str
    rounds: int
    turns: int
    warmup: int
    history_sizes: tuple[int, ...]
    sqlite_sizes: tuple[int, ...]
    history_reps: int
    concurrent_runs: tuple[int, ...]
    latency: float
    tracemalloc: bool
    memory_apart: bool
    stream_chunks: tuple[int, ...]
    stream_reps: int
    import_reps: int
    storm_seconds: float
    storm_capacity: float


FULL = Profile(
    name="full",
    rounds=5,
    turns=1000,
    warmup=50,
    history_sizes=(0, 50, 200, 800, 3200),
    sqlite_sizes=(0, 50, 200, 800, 3200),
    history_reps=7,
    concurrent_runs=(100, 1000),
    latency=0.05,
    tracemalloc=True,
    memory_apart=True,
    stream_chunks=(25, 50, 100, 200),
    stream_reps=7,
    import_reps=11,
    storm_seconds=30.0,
    storm_capacity=20.0,
)

QUICK = Profile(
    name="quick",
    rounds=1,
    turns=100,
    warmup=10,
    history_sizes=(0, 50, 200, 800, 3200),
    sqlite_sizes=(0, 50, 200, 800),
    history_reps=3,
    concurrent_runs=(200,),
    latency=0.05,
    tracemalloc=False,
    memory_apart=False,
    stream_chunks=(25, 100, 200),
    stream_reps=3,
    import_reps=1,
    storm_seconds=30.0,
    storm_capacity=4.0,
)

PROFILES = {p.name: p for p in (FULL, QUICK)}


@dataclass(frozen=True)
class Target:
    """One row's goal, as the issue states it.

    Attributes:
        scenario: the scenario key in results.
        text: the goal in words, for the table.
    """

    scenario: str
    text: str


TARGETS = {
    "one_step": Target("one_step", ">= 10x less than the best peer"),
    "two_step": Target("two_step", ">= 10x less than the best peer"),
    "history_memory": Target("history_memory", "turn at 3,200 events <= 2x turn at 0"),
    "history_sqlite": Target("history_sqlite", "turn at 3,200 events <= 3x turn at 0"),
    "concurrency": Target("concurrency", "<= 1/4 of the best peer's memory per run"),
    "import": Target("import", ">= 5x faster than the fastest peer"),
    "streaming": Target("streaming", "< 20 us per chunk; retries on within 5% of off"),
    "storm": Target("storm", "wastes least while serving most"),
}


def _job(scenario: str, key: str, **params: Any) -> dict[str, Any]:
    return {"scenario": scenario, "key": key, "params": params}


def timing_jobs(profile: Profile, round_index: int = 0) -> list[dict[str, Any]]:
    """The CPU-timed scenarios, run one after another in one process per side.

    History growth runs in the first round only: filling sessions with
    thousands of events through each framework's API is slow (google-adk's
    SQLite store most of all), and its figure is a ratio within one run.
    """
    turns = {"turns": profile.turns, "warmup": profile.warmup}
    memory = {"store": "memory", "sizes": list(profile.history_sizes)}
    sqlite = {"store": "sqlite", "sizes": list(profile.sqlite_sizes)}
    stream = {"chunk_counts": list(profile.stream_chunks), "reps": profile.stream_reps}
    history = [
        _job("history", "history_memory", reps=profile.history_reps, **memory),
        _job("history", "history_sqlite", reps=profile.history_reps, **sqlite),
    ]
    return [
        _job("per_call", "one_step", tools=False, **turns),
        _job("per_call", "two_step", tools=True, **turns),
        *(history if round_index == 0 else []),
        _job("streaming", "streaming_off", retries=False, **stream),
        _job("streaming", "streaming_on", retries=True, **stream),
    ]


def memory_jobs(profile: Profile) -> list[dict[str, Any]]:
    """The memory scenarios (each in a fresh process when ``memory_apart``).

    tracemalloc slows the peers tenfold, so its pass runs at the smallest size.
    Smaller sizes run more batches, so CPU per run is timed over as many runs
    at every size (the median batch is reported).
    """
    tracers = ["rss", "tracemalloc"] if profile.tracemalloc else ["rss"]
    latency = profile.latency
    most = max(profile.concurrent_runs)
    return [
        _job(
            "concurrency",
            f"concurrency_{tracer}",
            runs=runs,
            latency=latency,
            tracer=tracer,
            cpu_rounds=max(1, most // runs) if tracer == "rss" else 1,
        )
        for tracer in tracers
        for runs in profile.concurrent_runs
        if tracer == "rss" or runs == min(profile.concurrent_runs)
    ]
