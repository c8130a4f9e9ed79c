"""Fixtures for the retry tests: a fake clock, a budget, and captured spans."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tests.support.otel import span_exporter

from steadyflow.context import LlmCallBudget
from steadyflow.testing import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def budget() -> LlmCallBudget:
    return LlmCallBudget(100)


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = span_exporter()
    exporter.clear()
    yield exporter
    exporter.clear()
