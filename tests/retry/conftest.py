"""Fixtures for the retry tests: a fake clock, a budget, and captured spans."""

from __future__ import annotations

import pytest

from steadyflow.context import LlmCallBudget
from steadyflow.testing import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def budget() -> LlmCallBudget:
    return LlmCallBudget(100)
