"""Cost of the retry policy on a call that succeeds at the first attempt.

Measures, side by side in one process, microseconds per logical model call
for a model that answers at once:

- ``provider only``: iterating ``llm.generate_content_async`` directly;
- ``retries disabled``: ``generate_with_retries`` with ``RetryConfig()``;
- ``retries enabled``: ``generate_with_retries`` with ``max_attempts=3``.

Each runs first with no OpenTelemetry SDK (the default: the API's no-op
tracer), then again after installing an SDK ``TracerProvider`` with no
exporter (spans recorded and dropped). Rounds are interleaved, so drift
hits every variant alike; the median and the best round are reported (the
best is the better estimate on a busy machine).

Run: ``.venv/bin/python bench/retry_overhead.py [--calls N] [--rounds R]``
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import AsyncIterator, Awaitable, Callable

from steadyflow.context import LlmCallBudget
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse
from steadyflow.retry import RetryConfig
from steadyflow.retry._executor import generate_with_retries

DISABLED = RetryConfig()
ENABLED = RetryConfig(max_attempts=3)


class InstantLlm(BaseLlm):
    """Answers every call at once with the same response."""

    def __init__(self) -> None:
        super().__init__("instant")
        self.response = LlmResponse.from_text("ok")

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        yield self.response


async def provider_only(llm: BaseLlm, request: LlmRequest, calls: int) -> None:
    budget = LlmCallBudget(0)
    for _ in range(calls):
        budget.increment()
        async for _response in llm.generate_content_async(request, stream=False):
            pass


def with_policy(config: RetryConfig) -> Callable[[BaseLlm, LlmRequest, int], Awaitable[None]]:
    async def run(llm: BaseLlm, request: LlmRequest, calls: int) -> None:
        budget = LlmCallBudget(0)
        for _ in range(calls):
            async for _response in generate_with_retries(
                llm,
                request,
                stream=False,
                config=config,
                before_attempt=budget.increment,
                agent_name="bench",
                invocation_id="e-bench",
            ):
                pass

    return run


VARIANTS: dict[str, Callable[[BaseLlm, LlmRequest, int], Awaitable[None]]] = {
    "provider only": provider_only,
    "retries disabled": with_policy(DISABLED),
    "retries enabled (3 attempts)": with_policy(ENABLED),
}


async def measure(calls: int, rounds: int) -> dict[str, tuple[float, float]]:
    llm, request = InstantLlm(), LlmRequest()
    samples: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for variant in VARIANTS.values():  # warm up
        await variant(llm, request, calls // 10 or 1)
    for _ in range(rounds):
        for name, variant in VARIANTS.items():
            start = time.perf_counter()
            await variant(llm, request, calls)
            samples[name].append((time.perf_counter() - start) / calls * 1e6)
    return {name: (statistics.median(v), min(v)) for name, v in samples.items()}


def report(title: str, results: dict[str, tuple[float, float]]) -> None:
    print(f"\n{title}")
    print(f"  {'':<30} {'median':>8} {'best':>8}   best vs retries disabled")
    disabled = results["retries disabled"][1]
    for name, (median, best) in results.items():
        print(f"  {name:<30} {median:8.2f} {best:8.2f}   {best - disabled:+.2f} us/call")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(f"{args.calls} calls x {args.rounds} rounds, microseconds per call")
    report("no OpenTelemetry SDK (API no-op tracer)", asyncio.run(measure(args.calls, args.rounds)))
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
    except ImportError:
        print("\nopentelemetry-sdk not installed: pip install 'steadyflow[otel]'")
        return
    trace.set_tracer_provider(TracerProvider())
    report(
        "OpenTelemetry SDK installed (spans recorded, no exporter)",
        asyncio.run(measure(args.calls, args.rounds)),
    )


if __name__ == "__main__":
    main()
