"""AdaptiveThrottle: the SRE shedding probability on given counts, on an injected clock."""

from collections.abc import Callable, Iterator
from fractions import Fraction

import pytest

from steadyflow.retry._budget import AdaptiveThrottle, RetryBudget, shed_probability
from steadyflow.testing import FakeClock

KEY = "openai:gpt-4o"


def draws(*values: float) -> Callable[[], float]:
    it: Iterator[float] = iter(values)
    return lambda: next(it)


async def record(throttle: AdaptiveThrottle, *, failures: int = 0, accepts: int = 0) -> None:
    for _ in range(failures):
        await throttle.record(KEY, failed=True)
    for _ in range(accepts):
        await throttle.record(KEY, failed=False)


@pytest.mark.parametrize(
    ("requests", "accepts", "k", "expected"),
    [
        (0, 0, 2.0, Fraction(0)),
        (10, 0, 2.0, Fraction(10, 11)),
        (100, 50, 2.0, Fraction(0)),
        (100, 40, 2.0, Fraction(20, 101)),
        (100, 40, 1.0, Fraction(60, 101)),
        (99, 0, 1.5, Fraction(99, 100)),
    ],
)
def test_shed_probability_on_given_counts(requests, accepts, k, expected) -> None:
    assert shed_probability(requests, accepts, k) == pytest.approx(float(expected), abs=1e-15)


def test_defaults_are_the_sre_books_k_2_over_two_minutes() -> None:
    throttle = AdaptiveThrottle()
    assert (throttle.k, throttle.window, throttle.throttle_first_attempts) == (2.0, 120.0, False)
    assert isinstance(throttle, RetryBudget)


async def test_counts_requests_and_accepts_per_outcome() -> None:
    throttle = AdaptiveThrottle(clock=FakeClock())
    await record(throttle, failures=3, accepts=2)
    assert throttle.counts(KEY) == (5, 2)


async def test_a_retry_is_shed_when_the_draw_falls_under_the_probability() -> None:
    throttle = AdaptiveThrottle(clock=FakeClock(), random_source=draws(0.90))
    await record(throttle, failures=10)
    assert throttle.probability(KEY) == pytest.approx(10 / 11)
    assert not await throttle.allow(KEY, retry=True)


async def test_a_retry_goes_ahead_when_the_draw_is_at_or_over_the_probability() -> None:
    throttle = AdaptiveThrottle(clock=FakeClock(), random_source=draws(0.95))
    await record(throttle, failures=10)
    assert await throttle.allow(KEY, retry=True)


async def test_a_shed_retry_counts_as_a_request_without_an_accept() -> None:
    throttle = AdaptiveThrottle(clock=FakeClock(), random_source=draws(0.0))
    await record(throttle, failures=10)
    await throttle.allow(KEY, retry=True)
    assert throttle.counts(KEY) == (11, 0)


async def test_an_allowed_retry_is_not_counted_until_its_outcome() -> None:
    throttle = AdaptiveThrottle(clock=FakeClock(), random_source=draws(0.99))
    await record(throttle, failures=10)
    await throttle.allow(KEY, retry=True)
    assert throttle.counts(KEY) == (10, 0)


async def test_nothing_is_shed_while_the_provider_accepts_half_with_k_2() -> None:
    throttle = AdaptiveThrottle(k=2.0, clock=FakeClock(), random_source=draws(0.0))
    await record(throttle, failures=50, accepts=50)
    assert throttle.probability(KEY) == 0.0
    assert await throttle.allow(KEY, retry=True)


async def test_first_attempts_are_not_throttled_by_default() -> None:
    throttle = AdaptiveThrottle(clock=FakeClock(), random_source=draws(0.0))
    await record(throttle, failures=100)
    assert await throttle.allow(KEY, retry=False)


async def test_first_attempts_are_shed_when_configured() -> None:
    throttle = AdaptiveThrottle(
        throttle_first_attempts=True, clock=FakeClock(), random_source=draws(0.0)
    )
    await record(throttle, failures=100)
    assert not await throttle.allow(KEY, retry=False)


async def test_counts_leave_the_window_after_window_seconds() -> None:
    clock = FakeClock()
    throttle = AdaptiveThrottle(window=120.0, clock=clock)
    await record(throttle, failures=10)
    clock.advance(119.0)
    assert throttle.counts(KEY) == (10, 0)
    clock.advance(1.0)
    assert throttle.counts(KEY) == (0, 0)


async def test_the_window_slides_one_twelfth_at_a_time() -> None:
    clock = FakeClock()
    throttle = AdaptiveThrottle(window=120.0, clock=clock)
    await record(throttle, failures=4)
    clock.advance(10.0)
    await record(throttle, accepts=6)
    clock.advance(110.0)
    assert throttle.counts(KEY) == (6, 6)


async def test_keys_are_counted_apart() -> None:
    throttle = AdaptiveThrottle(clock=FakeClock(), random_source=draws(0.0))
    await record(throttle, failures=20)
    assert throttle.counts("anthropic:claude") == (0, 0)
    assert await throttle.allow("anthropic:claude", retry=True)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": 0.5}, "k must be >= 1"),
        ({"k": "2"}, "k must be a finite number"),
        ({"window": 0}, "window must be > 0"),
        ({"window": -1.0}, "window must be > 0"),
        ({"throttle_first_attempts": "yes"}, "throttle_first_attempts must be a bool"),
    ],
)
def test_invalid_settings_name_the_field(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        AdaptiveThrottle(**kwargs)
