"""OpenTelemetry is imported only when telemetry can be recorded.

Each test runs a fresh interpreter: this process has imported the API (and
installed an SDK) long ago, and ``sys.modules`` is what steadyflow checks.
"""

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # each case runs a fresh interpreter

# One turn with a retry and a tool call, so every span helper and metric runs.
TURN = '''
import asyncio, json, sys
from steadyflow import LlmAgent, RetryConfig, Runner, RunConfig
from steadyflow.testing import ScriptedLlm, call, fake_clock, http_error, run_turn


def lookup_order(order_id: str) -> dict:
    """Look up an order (inside a span of its own once OpenTelemetry is loaded)."""
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return {"order_id": order_id, "status": "shipped"}
    with trace.get_tracer("shop").start_as_current_span("lookup in the shop database"):
        return {"order_id": order_id, "status": "shipped"}


def turn() -> None:
    model = ScriptedLlm([http_error(503), call("lookup_order", {"order_id": "812"}), "Shipped."])
    agent = LlmAgent(name="order_support", model=model, tools=[lookup_order])
    config = RunConfig(retry_config=RetryConfig(max_attempts=3, jitter_ratio=0.0))
    with fake_clock():
        result = asyncio.run(run_turn(agent, "Where is order 812?", run_config=config))
    assert result.error is None, result.error
    assert result.final_text == "Shipped.", result.final_text


def otel_modules() -> list[str]:
    return sorted(name for name in sys.modules if name.startswith("opentelemetry"))
'''

SDK_AFTER_IMPORT = """
turn()
before = otel_modules()

from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
reader = InMemoryMetricReader()
metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))

turn()
spans = exporter.get_finished_spans()
names = {span.context.span_id: span.name for span in spans}
parents = {span.name: names.get(span.parent.span_id) if span.parent else None for span in spans}
attempts = [
    point.value
    for resource in reader.get_metrics_data().resource_metrics
    for scope in resource.scope_metrics
    for metric in scope.metrics
    if metric.name == "steadyflow.llm.attempts"
    for point in metric.data.data_points
]
print(json.dumps({
    "before": before,
    "spans": sorted(span.name for span in spans),
    "parents": parents,
    "attempts": sum(attempts),
}))
"""


def run_script(script: str, **env: str) -> dict:
    """Run ``TURN`` then ``script`` in a fresh interpreter; the JSON it printed last."""
    clean = {name: value for name, value in os.environ.items() if not name.startswith("OTEL_")}
    completed = subprocess.run(
        [sys.executable, "-c", TURN + script],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout.splitlines()[-1])


def test_importing_and_running_a_turn_without_an_sdk_never_imports_opentelemetry() -> None:
    loaded = run_script("turn()\nprint(json.dumps(otel_modules()))")
    assert loaded == []


def test_an_sdk_installed_after_the_first_turn_receives_that_turns_spans_and_metrics() -> None:
    seen = run_script(SDK_AFTER_IMPORT)
    assert seen["before"] == []
    assert seen["spans"] == [
        "call_llm scripted-model",
        "call_llm scripted-model",
        "execute_tool lookup_order",
        "invoke_agent order_support",
        "llm_attempt",
        "llm_attempt",
        "llm_attempt",
        "lookup in the shop database",
    ]
    assert seen["parents"] == {
        "invoke_agent order_support": None,
        "call_llm scripted-model": "invoke_agent order_support",
        "llm_attempt": "call_llm scripted-model",
        "execute_tool lookup_order": "invoke_agent order_support",
        "lookup in the shop database": "execute_tool lookup_order",
    }
    assert seen["attempts"] == 3


def test_providers_named_by_the_environment_are_loaded_on_the_first_turn() -> None:
    script = """
turn()
loaded = otel_modules()
from opentelemetry import metrics, trace
print(json.dumps({
    "trace": "opentelemetry.trace" in loaded,
    "metrics": "opentelemetry.metrics" in loaded,
    "tracer_provider": type(trace.get_tracer_provider()).__module__,
    "meter_provider": type(metrics.get_meter_provider()).__module__,
}))
"""
    seen = run_script(
        script,
        OTEL_PYTHON_TRACER_PROVIDER="sdk_tracer_provider",
        OTEL_PYTHON_METER_PROVIDER="sdk_meter_provider",
    )
    assert seen == {
        "trace": True,
        "metrics": True,
        "tracer_provider": "opentelemetry.sdk.trace",
        "meter_provider": "opentelemetry.sdk.metrics._internal",
    }
