"""Scenario drivers: the same measuring loop for every side.

A side supplies an ``Adapter`` (how to set up a conversation and run one
turn with its own runtime and fake model); the drivers here do all timing
and memory reading, so every side is measured by identical code. Each turn
reports how many model calls and streamed chunks it saw, and a driver stops
with an error when that differs from the scenario's shape: a broken fake
model cannot produce fast numbers.

Standard library only (runs in the peers' virtualenvs).
"""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from .common import (
    Timing,
    peak_rss_kb,
    reset_peak_rss,
    rss_kb,
    slope,
    summarize,
    time_async,
)

__all__ = [
    "Adapter",
    "ScenarioShapeError",
    "Setup",
    "TurnStats",
    "concurrency",
    "history",
    "per_call",
    "streaming",
]


class ScenarioShapeError(RuntimeError):
    """A turn did not make the model calls or stream the chunks the scenario asked for."""


@dataclass(frozen=True)
class Setup:
    """What one conversation looks like.

    Attributes:
        tools: the agent has one sync tool and the model calls it once
            (two model calls per turn) instead of answering at once.
        store: ``"default"`` (how the framework's quickstart runs a turn),
            ``"memory"`` or ``"sqlite"`` (a session store of that kind).
        prior_events: events (messages) already in the session.
        latency: seconds the fake model waits before answering.
        stream_chunks: stream the answer in this many chunks (0 = no stream).
        retries: turn the framework's retry policy on (where it has one).
    """

    tools: bool = False
    store: str = "default"
    prior_events: int = 0
    latency: float = 0.0
    stream_chunks: int = 0
    retries: bool = False

    @property
    def model_calls(self) -> int:
        """Model calls one turn of this shape makes."""
        return 2 if self.tools else 1


@dataclass(frozen=True)
class TurnStats:
    """What a side observed during one turn."""

    model_calls: int
    chunk_events: int = 0


class Adapter(Protocol):
    """One framework, driven the way its users drive it."""

    def supports(self, setup: Setup) -> str | None:
        """None when ``setup`` can run; otherwise why not (shown in the table)."""
        ...

    def note(self, setup: Setup) -> str:
        """What the framework does per turn for ``setup`` (store, persistence)."""
        ...

    async def conversation(self, setup: Setup) -> Any:
        """A ready conversation (untimed): agent, session with its prior events."""
        ...

    async def turn(self, conversation: Any) -> TurnStats:
        """Run one user turn to its final answer (timed)."""
        ...

    async def close(self) -> None:
        """Release stores and temporary files."""
        ...


def _check(stats: object, setup: Setup) -> None:
    if not isinstance(stats, TurnStats):
        raise TypeError(f"adapter.turn returned {stats!r}, not TurnStats")
    if stats.model_calls != setup.model_calls:
        raise ScenarioShapeError(
            f"turn made {stats.model_calls} model calls, the scenario needs {setup.model_calls}"
        )
    if setup.stream_chunks and stats.chunk_events != setup.stream_chunks:
        raise ScenarioShapeError(
            f"turn yielded {stats.chunk_events} chunk events for {setup.stream_chunks} chunks"
        )


async def _timed_turn(adapter: Adapter, setup: Setup) -> Timing:
    conversation = await adapter.conversation(setup)
    timing, stats = await time_async(lambda: adapter.turn(conversation))
    _check(stats, setup)
    return timing


async def _samples(adapter: Adapter, setup: Setup, count: int) -> dict[str, dict[str, float]]:
    timings = [await _timed_turn(adapter, setup) for _ in range(count)]
    return {
        "cpu": summarize([t.cpu for t in timings]),
        "wall": summarize([t.wall for t in timings]),
    }


async def per_call(adapter: Adapter, *, tools: bool, turns: int, warmup: int) -> dict[str, Any]:
    """Framework time per model call: one turn per fresh conversation, timed alone."""
    setup = Setup(tools=tools)
    await _samples(adapter, setup, warmup)
    per_turn = await _samples(adapter, setup, turns)
    per_call = {
        clock: {k: v if k == "n" else v / setup.model_calls for k, v in stats.items()}
        for clock, stats in per_turn.items()
    }
    return {"per_call_s": per_call, "note": adapter.note(setup)}


async def history(adapter: Adapter, *, store: str, sizes: list[int], reps: int) -> dict[str, Any]:
    """Time of one more turn on sessions already holding ``sizes`` events.

    One session per size is filled through the framework's own store API,
    then ``reps`` turns run on it one after another (each adds a few events,
    negligible next to the size except at 0). The first of them is the
    "cold" turn; the median is the steady state of a live conversation.
    """
    first = Setup(store=store)
    reason = adapter.supports(first)
    if reason is not None:
        return {"skipped": reason}
    await _timed_turn(adapter, first)  # warm caches and lazy imports
    by_size: dict[str, Any] = {}
    for size in sizes:
        setup = Setup(store=store, prior_events=size)
        conversation = await adapter.conversation(setup)
        timings: list[Timing] = []
        for _ in range(reps):
            timing, stats = await time_async(partial(adapter.turn, conversation))
            _check(stats, setup)
            timings.append(timing)
        by_size[str(size)] = {
            "cpu": summarize([t.cpu for t in timings]),
            "wall": summarize([t.wall for t in timings]),
            "first_cpu": timings[0].cpu,
        }
    return {"turn_s": by_size, "note": adapter.note(first)}


async def concurrency(
    adapter: Adapter, *, runs: int, latency: float, tracer: str, cpu_rounds: int = 1
) -> dict[str, Any]:
    """Peak memory and wall time of ``runs`` concurrent two-step invocations.

    ``tracer`` is ``"rss"`` (kernel high-water mark of resident memory) or
    ``"tracemalloc"`` (Python heap peak; slower, so its wall time is not used).
    ``cpu_rounds`` > 1 runs that many batches of ``runs`` (fresh conversations
    each; memory is read on the first) and reports the median CPU time: a
    batch of 100 runs takes tens of milliseconds, too short to time once.
    """
    setup = Setup(tools=True, latency=latency)
    await _timed_turn(adapter, setup)  # warm caches and lazy imports
    conversations = [await adapter.conversation(setup) for _ in range(runs)]
    gc.collect()
    if tracer == "tracemalloc":
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
    else:
        base = rss_kb() * 1024
        if not reset_peak_rss():
            raise RuntimeError("cannot reset the RSS high-water mark (/proc/self/clear_refs)")
    timing = await _concurrent_batch(adapter, setup, conversations)
    if tracer == "tracemalloc":
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    else:
        peak = peak_rss_kb() * 1024
    cpu = [timing.cpu]
    for _ in range(cpu_rounds - 1):
        batch = [await adapter.conversation(setup) for _ in range(runs)]
        cpu.append((await _concurrent_batch(adapter, setup, batch)).cpu)
    return {
        "runs": runs,
        "tracer": tracer,
        "peak_bytes_per_run": (peak - base) / runs,
        "wall_s": timing.wall,
        "cpu_s": summarize(cpu)["median"],
        "cpu_s_rounds": cpu,
        "ideal_wall_s": latency * setup.model_calls,
        "note": adapter.note(setup),
    }


async def _concurrent_batch(adapter: Adapter, setup: Setup, conversations: list[Any]) -> Timing:
    """One turn on every conversation, all started together; checked for shape."""
    timing, results = await time_async(
        lambda: asyncio.gather(*(adapter.turn(c) for c in conversations))
    )
    for stats in results:
        _check(stats, setup)
    return timing


async def streaming(
    adapter: Adapter, *, chunk_counts: list[int], reps: int, retries: bool
) -> dict[str, Any]:
    """Per-chunk cost from the model's chunk to the yielded event.

    The slope of turn time against the number of chunks: fixed per-turn
    costs cancel out, what is left is the price of one more chunk.
    """
    reason = adapter.supports(Setup(stream_chunks=1, retries=retries))
    if reason is not None:
        return {"skipped": reason}
    await _timed_turn(adapter, Setup(stream_chunks=chunk_counts[0], retries=retries))
    turns = {
        str(count): await _samples(adapter, Setup(stream_chunks=count, retries=retries), reps)
        for count in chunk_counts
    }
    xs = [float(c) for c in chunk_counts]
    return {
        "per_chunk_s": {
            clock: slope(xs, [turns[str(c)][clock]["median"] for c in chunk_counts])
            for clock in ("cpu", "wall")
        },
        "turn_s": turns,
        "note": adapter.note(Setup(stream_chunks=1, retries=retries)),
    }
