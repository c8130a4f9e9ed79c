"""One storm, one policy: a burst of calls through the real runtime on virtual time.

Calls arrive as a Poisson stream at ``overload`` times the provider's
capacity for ``seconds`` simulated seconds. Each call is one invocation of
an ``LlmAgent`` through ``InMemoryRunner`` with the policy's ``RunConfig``:
the runtime's retry loop decides every retry and every wait (through the
clock installed with ``set_clock``). The simulation then runs until the last
call has succeeded or given up. A policy the measured code cannot run
(``policies.missing``) gives a row saying why instead of figures.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import random
from dataclasses import dataclass, field
from typing import Any

from steadyflow import InMemoryRunner, LlmAgent, RunConfig
from steadyflow.errors import ModelError

from ..common import percentile
from .policies import StormPolicy, missing
from .provider import CapacityProvider
from .vloop import LoopClock, VirtualTimeLoop

__all__ = ["StormSettings", "simulate"]


@dataclass(frozen=True)
class StormSettings:
    """The storm's shape.

    Attributes:
        capacity: provider requests admitted per second.
        overload: arrival rate as a multiple of ``capacity``.
        seconds: how long calls keep arriving (simulated).
        seed: seeds the arrivals and the retry jitter.
    """

    capacity: float = 20.0
    overload: float = 5.0
    seconds: float = 30.0
    seed: int = 7


@dataclass
class _Tally:
    latencies: list[float] = field(default_factory=list)
    failures: int = 0


async def _one_call(runner: InMemoryRunner, run_config: RunConfig, tally: _Tally) -> None:
    loop = asyncio.get_running_loop()
    start = loop.time()
    session = await runner.create_session(user_id="caller")
    try:
        async for _ in runner.run_async(
            user_id="caller", session_id=session.id, new_message="hi", run_config=run_config
        ):
            pass
    except ModelError:
        tally.failures += 1
        return
    tally.latencies.append(loop.time() - start)


async def _storm(policy: StormPolicy, settings: StormSettings) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    provider = CapacityProvider(capacity=settings.capacity, headers=policy.headers)
    model = policy.wrap_model(provider) if policy.wrap_model else provider
    runner = InMemoryRunner(LlmAgent(name="caller", model=model))
    run_config = policy.run_config()
    tally = _Tally()
    arrivals = random.Random(settings.seed)
    calls: list[asyncio.Task[None]] = []
    at = arrivals.expovariate(settings.capacity * settings.overload)
    while at < settings.seconds:
        await asyncio.sleep(at - loop.time())
        calls.append(asyncio.create_task(_one_call(runner, run_config, tally)))
        at += arrivals.expovariate(settings.capacity * settings.overload)
    await asyncio.gather(*calls)
    served = len(tally.latencies)
    return {
        "policy": policy.name,
        "description": policy.description,
        "calls": len(calls),
        "succeeded": served,
        "success_rate": served / len(calls),
        "attempts": provider.stats.attempts,
        "attempts_per_success": provider.stats.attempts / served if served else None,
        "p50_s": percentile(tally.latencies, 50),
        "p99_s": percentile(tally.latencies, 99),
        "drained_at_s": loop.time(),
    }


def _clock_module() -> Any:
    """The retry loop's clock module: ``_clock`` now, ``clock`` in older commits."""
    for name in ("steadyflow.retry._clock", "steadyflow.retry.clock"):
        with contextlib.suppress(ModuleNotFoundError):
            return importlib.import_module(name)
    raise ImportError("the measured steadyflow has no steadyflow.retry._clock (set_clock)")


set_clock = _clock_module().set_clock


def simulate(policy: StormPolicy, settings: StormSettings) -> dict[str, Any]:
    """Run the storm for ``policy`` on a fresh virtual-time loop; its figures.

    Where the measured steadyflow lacks what ``policy`` needs, the row has
    ``skipped`` (why) instead of figures.
    """
    why_not = missing(policy)
    if why_not is not None:
        return {"policy": policy.name, "description": policy.description, "skipped": why_not}
    random.seed(settings.seed)  # the retry loop's jitter draws from the global generator
    previous = set_clock(LoopClock())
    retry_logger = logging.getLogger("steadyflow")
    level = retry_logger.level
    retry_logger.setLevel(logging.ERROR)  # thousands of retry warnings are the point here
    try:
        with asyncio.Runner(loop_factory=VirtualTimeLoop) as runner:
            return runner.run(_storm(policy, settings))
    finally:
        retry_logger.setLevel(level)
        set_clock(previous)
