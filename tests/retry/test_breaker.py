"""CircuitBreaker: closed -> open -> half-open -> closed/open, on an injected clock."""

import pytest

from steadyflow.errors import CircuitOpenError
from steadyflow.retry._breaker import Breaker, CircuitBreaker, CircuitState
from steadyflow.testing import FakeClock

KEY = "openai:gpt-4o"


def breaker(clock: FakeClock, **kwargs) -> CircuitBreaker:
    settings = {"minimum_calls": 4, "open_for": 30.0, "half_open_probes": 2, "window": 60.0}
    return CircuitBreaker(**{**settings, **kwargs}, clock=clock)


async def outcomes(cb: CircuitBreaker, *failed: bool, key: str = KEY) -> None:
    for f in failed:
        await cb.acquire(key)
        await cb.record(key, failed=f)


async def opened(clock: FakeClock, **kwargs) -> CircuitBreaker:
    cb = breaker(clock, **kwargs)
    await outcomes(cb, True, True, True, True)
    assert cb.state(KEY) is CircuitState.OPEN
    return cb


def test_defaults() -> None:
    cb = CircuitBreaker()
    assert (cb.failure_rate_threshold, cb.window, cb.minimum_calls) == (0.5, 60.0, 20)
    assert (cb.open_for, cb.half_open_probes) == (30.0, 3)
    assert isinstance(cb, Breaker)


async def test_a_new_circuit_is_closed_and_lets_calls_through() -> None:
    cb = breaker(FakeClock())
    await cb.acquire(KEY)
    assert cb.state(KEY) is CircuitState.CLOSED


async def test_stays_closed_below_minimum_calls_even_if_all_failed() -> None:
    cb = breaker(FakeClock())
    await outcomes(cb, True, True, True)
    assert cb.state(KEY) is CircuitState.CLOSED


async def test_opens_when_the_failure_rate_reaches_the_threshold() -> None:
    cb = breaker(FakeClock(), failure_rate_threshold=0.5)
    await outcomes(cb, False, True, False, True)
    assert cb.state(KEY) is CircuitState.OPEN


async def test_stays_closed_below_the_threshold() -> None:
    cb = breaker(FakeClock(), failure_rate_threshold=0.5)
    await outcomes(cb, False, True, False, False, True, False)
    assert cb.state(KEY) is CircuitState.CLOSED


async def test_open_circuit_fails_fast_with_the_time_left() -> None:
    clock = FakeClock()
    cb = await opened(clock)
    clock.advance(10.0)
    with pytest.raises(CircuitOpenError) as raised:
        await cb.acquire(KEY)
    assert raised.value.retry_after == pytest.approx(20.0)
    assert raised.value.provider == "openai"
    assert KEY in str(raised.value)


async def test_turns_half_open_after_open_for() -> None:
    clock = FakeClock()
    cb = await opened(clock)
    clock.advance(30.0)
    assert cb.state(KEY) is CircuitState.HALF_OPEN


async def test_half_open_lets_only_half_open_probes_through() -> None:
    clock = FakeClock()
    cb = await opened(clock, half_open_probes=2)
    clock.advance(30.0)
    await cb.acquire(KEY)
    await cb.acquire(KEY)
    with pytest.raises(CircuitOpenError):
        await cb.acquire(KEY)


async def test_half_open_closes_when_every_probe_succeeds() -> None:
    clock = FakeClock()
    cb = await opened(clock, half_open_probes=2)
    clock.advance(30.0)
    await outcomes(cb, False)
    assert cb.state(KEY) is CircuitState.HALF_OPEN
    await outcomes(cb, False)
    assert cb.state(KEY) is CircuitState.CLOSED


async def test_half_open_reopens_on_a_failed_probe_for_another_open_for() -> None:
    clock = FakeClock()
    cb = await opened(clock, half_open_probes=2)
    clock.advance(30.0)
    await outcomes(cb, False, True)
    assert cb.state(KEY) is CircuitState.OPEN
    clock.advance(29.0)
    assert cb.state(KEY) is CircuitState.OPEN
    clock.advance(1.0)
    assert cb.state(KEY) is CircuitState.HALF_OPEN


async def test_a_closed_circuit_starts_counting_afresh() -> None:
    clock = FakeClock()
    cb = await opened(clock, half_open_probes=1)
    clock.advance(30.0)
    await outcomes(cb, False)
    await outcomes(cb, True, True, True)
    assert cb.state(KEY) is CircuitState.CLOSED


async def test_probes_that_never_report_are_replaced_after_open_for() -> None:
    clock = FakeClock()
    cb = await opened(clock, half_open_probes=1)
    clock.advance(30.0)
    await cb.acquire(KEY)  # a probe that is cancelled and never records
    clock.advance(30.0)
    await cb.acquire(KEY)
    assert cb.state(KEY) is CircuitState.HALF_OPEN


async def test_failures_older_than_the_window_are_forgotten() -> None:
    clock = FakeClock()
    cb = breaker(clock, window=60.0)
    await outcomes(cb, True, True, True)
    clock.advance(60.0)
    await outcomes(cb, True)
    assert cb.state(KEY) is CircuitState.CLOSED


async def test_an_outcome_arriving_while_open_changes_nothing() -> None:
    clock = FakeClock()
    cb = await opened(clock)
    await cb.record(KEY, failed=False)
    clock.advance(30.0)
    assert cb.state(KEY) is CircuitState.HALF_OPEN


async def test_keys_have_separate_circuits() -> None:
    cb = await opened(FakeClock())
    await cb.acquire("anthropic:claude")
    assert cb.state("anthropic:claude") is CircuitState.CLOSED


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"failure_rate_threshold": 0}, "failure_rate_threshold must be > 0"),
        ({"failure_rate_threshold": 1.5}, "failure_rate_threshold must be <= 1"),
        ({"window": 0}, "window must be > 0"),
        ({"minimum_calls": 0}, "minimum_calls must be >= 1"),
        ({"minimum_calls": 2.5}, "minimum_calls must be an int"),
        ({"open_for": -1}, "open_for must be >= 0"),
        ({"half_open_probes": 0}, "half_open_probes must be >= 1"),
    ],
)
def test_invalid_settings_name_the_field(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        CircuitBreaker(**kwargs)
