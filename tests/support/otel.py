"""In-memory OpenTelemetry exporters for tests, installed once per process.

The global tracer and meter providers can be set only once, so every test
module that captures spans or metrics shares these: an SDK provider another
fixture already installed is reused and given one more in-memory exporter.
"""

from __future__ import annotations

from functools import cache

from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader, MetricsData
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


@cache
def span_exporter() -> InMemorySpanExporter:
    """An exporter receiving every span of this process from now on."""
    exporter = InMemorySpanExporter()
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return exporter


@cache
def metric_reader() -> InMemoryMetricReader:
    """A reader of every steadyflow metric of this process (cumulative)."""
    reader = InMemoryMetricReader()
    metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
    return reader


def metric_points(reader: InMemoryMetricReader, name: str) -> dict[frozenset, object]:
    """The data points of metric ``name``, keyed by their attributes.

    Counters give their value, histograms ``(count, sum)``.
    """
    data: MetricsData | None = reader.get_metrics_data()
    found: dict[frozenset, object] = {}
    if data is None:
        return found
    for resource in data.resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                if metric.name != name:
                    continue
                for point in metric.data.data_points:
                    key = frozenset(point.attributes.items())
                    value = getattr(point, "value", None)
                    found[key] = value if value is not None else (point.count, point.sum)
    return found
