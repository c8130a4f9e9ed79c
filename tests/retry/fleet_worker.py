"""One worker process of the fleet test: agent turns against a provider that fails them all.

Started once per test module as ``python fleet_worker.py``; it imports
everything (the OpenAI SDK is slow to import), says ``ready``, then serves
one job per line read from stdin::

    BASE_URL CALLS MAX_ATTEMPTS [REDIS_URL PREFIX MAX_TOKENS]

A job runs ``CALLS`` turns of an agent on the OpenAI adapter pointed at the
provider emulator, with ``RetryConfig(max_attempts=MAX_ATTEMPTS)`` and, when
a Redis URL is given, a ``RedisRetryBudget`` around
``TokenBucketRetryBudget(max_tokens=MAX_TOKENS)``. Retry waits go through the
testing clock, so nothing sleeps. It answers ``errors: N``, the number of
turns that ended with a provider error; the test counts the requests at the
emulator.
"""

from __future__ import annotations

import asyncio
import sys

from steadyflow import LlmAgent, RetryConfig, RunConfig
from steadyflow.errors import ModelHTTPError
from steadyflow.models.openai import OpenAI
from steadyflow.retry import RedisRetryBudget, TokenBucketRetryBudget
from steadyflow.testing import run_turn, set_testing


async def work(base_url: str, calls: int, max_attempts: int, shared: list[str]) -> int:
    budget = None
    if shared:
        url, prefix, max_tokens = shared
        local = TokenBucketRetryBudget(max_tokens=float(max_tokens))
        budget = RedisRetryBudget(local, url=url, prefix=prefix)
    retry = RetryConfig(max_attempts=max_attempts, budget=budget)
    agent = LlmAgent(name="worker", model=OpenAI("gpt-4o-mini", api_key="test", base_url=base_url))
    errors = 0
    try:
        for _ in range(calls):
            result = await run_turn(agent, "hi", run_config=RunConfig(retry_config=retry))
            errors += isinstance(result.error, ModelHTTPError)
    finally:
        if budget is not None:
            await budget.aclose()
    return errors


def main() -> int:
    set_testing(True)
    print("ready", flush=True)
    for line in sys.stdin:
        base_url, calls, max_attempts, *shared = line.split()
        errors = asyncio.run(work(base_url, int(calls), int(max_attempts), shared))
        print(f"errors: {errors}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
