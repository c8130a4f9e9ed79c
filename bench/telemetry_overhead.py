"""Cost of telemetry per model call: spans, metrics and the stored trace.

Measures, in microseconds per logical model call that succeeds at once,
the exact telemetry work the runtime does around it:

- ``spans``: the ``call_llm`` and ``llm_attempt`` spans (start, attributes,
  end) under an agent span, as the loop's default observer (``CallSpans``)
  opens them;
- ``all telemetry``: the invocation recorder, the loop's observer in a run:
  those spans, the stored trace (a step, the attempt, the response's usage)
  and the metric records, i.e. everything added to one model call;
- ``per agent run``: the ``invoke_agent`` span and the context copy, paid
  once per agent run rather than per call (reported apart).

And, end to end, ``generate_with_retries`` with its default observer and with
the recorder (the difference is what the trace and metrics add inside the
real loop).

Each runs first with no OpenTelemetry SDK (the API's no-op tracer and
meter), then after installing an SDK ``TracerProvider`` (no exporter) and
``MeterProvider`` (an in-memory reader). The target is < 5 us per call with
no SDK. Times are this process's CPU time (``time.process_time``), not wall
time, so other work on a shared machine does not count; the median and best
of the rounds are reported. A recorder is created per 1,000 calls, as each
invocation gets its own.

Run: ``.venv/bin/python bench/telemetry_overhead.py [--calls N] [--rounds R]``
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import AsyncIterator, Callable

from opentelemetry.trace import Span

from steadyflow import telemetry
from steadyflow.context import LlmCallBudget
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse
from steadyflow.retry import RetryConfig
from steadyflow.retry._executor import generate_with_retries
from steadyflow.retry._observer import CallSpans
from steadyflow.trace_record import InvocationRecorder
from steadyflow.types import UsageMetadata

REQUEST = LlmRequest(model="bench-model")
RESPONSE = LlmResponse.from_text(
    "ok", finish_reason="STOP", usage_metadata=UsageMetadata(input_tokens=12, output_tokens=3)
)


class InstantLlm(BaseLlm):
    """Answers every call at once with the same response."""

    provider = "bench"

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        yield RESPONSE


async def _nothing() -> AsyncIterator[LlmResponse]:
    return
    yield


EMPTY = _nothing()


def agent_span() -> Span:
    return telemetry.start_agent_span(
        "bench", conversation_id="s-1", invocation_id="e-1", parent=None
    )


def spans_only(calls: int) -> None:
    parent = agent_span()
    for _ in range(calls):
        observe(CallSpans("bench", parent))
    parent.end()


def observe(observer: CallSpans) -> None:
    """What the retry loop tells its observer about a call answered at once."""
    observer.call_started("bench", "bench-model")
    observer.attempt_started(1, 0.0, EMPTY)
    observer.response_received(RESPONSE)
    observer.attempt_ended(None)
    observer.call_ended(1, None)


def all_telemetry(calls: int) -> None:
    parent = agent_span()
    recorder = InvocationRecorder()
    for _ in range(calls):
        step = recorder.start_step("bench")
        observe(
            recorder.model_call(
                step,
                REQUEST,
                provider="bench",
                model="bench-model",
                conversation_id="s-1",
                respect_retry_after=True,
                agent_name="bench",
                parent=parent,
            )
        )
        recorder.end_step(step)
        if len(recorder.trace.steps) > 1000:  # keep memory flat, as real invocations do
            recorder = InvocationRecorder()
    parent.end()


def per_agent_run(calls: int) -> None:
    recorder = InvocationRecorder()
    for _ in range(calls):
        span = agent_span()
        recorder.end_agent_span(span, "bench", 0, 1, 10)


def loop(observed: bool) -> Callable[[int], None]:
    def run(calls: int) -> None:
        asyncio.run(_loop(calls, observed))

    return run


async def _loop(calls: int, observed: bool) -> None:
    llm, budget, recorder = InstantLlm("bench-model"), LlmCallBudget(0), InvocationRecorder()
    config = RetryConfig()
    for _ in range(calls):
        observer = None
        if observed:
            observer = recorder.model_call(
                None,
                REQUEST,
                provider="bench",
                model="bench-model",
                conversation_id="s-1",
                respect_retry_after=True,
            )
        async for response in generate_with_retries(
            llm,
            REQUEST,
            stream=False,
            config=config,
            before_attempt=budget.increment,
            observer=observer,
        ):
            if observer is not None:
                observer.response_received(response)


VARIANTS: dict[str, Callable[[int], None]] = {
    "spans": spans_only,
    "all telemetry": all_telemetry,
    "per agent run (not per call)": per_agent_run,
    "retry loop, no observer": loop(False),
    "retry loop, with observer": loop(True),
}


def measure(calls: int, rounds: int) -> dict[str, tuple[float, float]]:
    samples: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for variant in VARIANTS.values():  # warm up
        variant(calls // 10 or 1)
    for _ in range(rounds):
        for name, variant in VARIANTS.items():
            start = time.process_time()
            variant(calls)
            samples[name].append((time.process_time() - start) / calls * 1e6)
    return {name: (statistics.median(v), min(v)) for name, v in samples.items()}


def report(title: str, results: dict[str, tuple[float, float]]) -> None:
    print(f"\n{title}")
    print(f"  {'':<32} {'median':>8} {'best':>8}  (us of CPU per call)")
    for name, (median, best) in results.items():
        print(f"  {name:<32} {median:8.2f} {best:8.2f}")
    plain, observed = results["retry loop, no observer"][1], results["retry loop, with observer"][1]
    print(f"  {'observer inside the real loop':<32} {'':>8} {observed - plain:+8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(f"{args.calls} calls x {args.rounds} rounds")
    report("no OpenTelemetry SDK (API no-op tracer and meter)", measure(args.calls, args.rounds))
    try:
        from opentelemetry import metrics, trace
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        from opentelemetry.sdk.trace import TracerProvider
    except ImportError:
        print("\nopentelemetry-sdk not installed: pip install 'steadyflow[otel]'")
        return
    trace.set_tracer_provider(TracerProvider())
    metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))
    report(
        "OpenTelemetry SDK installed (spans recorded, no exporter; metrics aggregated)",
        measure(args.calls, args.rounds),
    )


if __name__ == "__main__":
    main()
