"""The retry-storm simulation: a shared adaptive budget wastes little and serves the most.

Runs the benchmark's storm (``bench/storm``: the real runtime on a virtual
clock against a provider of fixed capacity, overloaded 5x) at a small size.
"""

import pytest
from bench.storm.policies import STORM_POLICIES
from bench.storm.simulate import StormSettings, simulate

pytestmark = pytest.mark.slow  # simulates thousands of calls

SETTINGS = StormSettings(capacity=4.0, overload=5.0, seconds=30.0)


@pytest.fixture(scope="module")
def storm() -> dict[str, dict]:
    return {name: simulate(STORM_POLICIES[name], SETTINGS) for name in ("naive", "adaptive")}


def test_the_adaptive_budget_sends_at_most_1_2_attempts_per_served_call(storm) -> None:
    assert storm["adaptive"]["attempts_per_success"] <= 1.2


def test_the_adaptive_budget_serves_at_least_as_many_calls_as_naive_retries(storm) -> None:
    assert storm["adaptive"]["succeeded"] >= storm["naive"]["succeeded"]
