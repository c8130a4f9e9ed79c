"""steadyflow.testing's clock switch: no real waiting, delays recorded."""

import asyncio

import pytest

from steadyflow.retry._clock import SystemClock, current_clock, set_clock
from steadyflow.testing import FakeClock, fake_clock, is_testing, set_testing


async def test_fake_sleep_records_the_delay_and_moves_time() -> None:
    clock = FakeClock(start=10.0)
    await clock.sleep(0.5)
    await clock.sleep(2.0)
    assert clock.sleeps == [0.5, 2.0]
    assert clock.monotonic() == 12.5
    assert clock.total_slept == 2.5


def test_advance_moves_time_without_recording_a_sleep() -> None:
    clock = FakeClock()
    clock.advance(3.0)
    assert (clock.monotonic(), clock.sleeps) == (3.0, [])


async def test_negative_sleep_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        await FakeClock().sleep(-1.0)


def test_negative_advance_is_refused() -> None:
    with pytest.raises(ValueError, match="backwards"):
        FakeClock().advance(-1.0)


async def test_fake_sleep_is_still_a_cancellation_point() -> None:
    clock = FakeClock()

    async def sleeper() -> None:
        await clock.sleep(100.0)

    task = asyncio.create_task(sleeper())
    await asyncio.sleep(0)  # let it start and suspend at the fake sleep
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_set_testing_installs_and_removes_the_fake_clock() -> None:
    clock = set_testing(True)
    try:
        assert is_testing()
        assert current_clock() is clock
    finally:
        assert set_testing(False) is None
    assert not is_testing()
    assert isinstance(current_clock(), SystemClock)


def test_fake_clock_context_restores_the_previous_clock() -> None:
    outer = FakeClock()
    previous = set_clock(outer)
    try:
        with fake_clock() as inner:
            assert current_clock() is inner
        assert current_clock() is outer
    finally:
        set_clock(previous)


def test_set_clock_refuses_objects_that_are_not_clocks() -> None:
    with pytest.raises(ValueError, match="clock"):
        set_clock(object())  # type: ignore[arg-type]
