"""ProviderPacer on its own: reservations, learning from headers, AIMD, quotas."""

from __future__ import annotations

import math

import pytest

from steadyflow.retry import PaceOutcome, ProviderPacer
from steadyflow.testing import FakeClock

KEY = "openai:gpt-x"
ONE = {"requests": 1.0}


def openai_headers(limit: int, remaining: int, reset: str) -> dict[str, str]:
    return {
        "x-ratelimit-limit-requests": str(limit),
        "x-ratelimit-remaining-requests": str(remaining),
        "x-ratelimit-reset-requests": reset,
    }


async def waits(pacer: ProviderPacer, n: int, latest: float = math.inf) -> list[float]:
    return [(await pacer.admit(KEY, ONE, earliest=0.0, latest=latest)).wait for _ in range(n)]


async def test_an_unknown_limit_admits_everything_at_once() -> None:
    pacer = ProviderPacer(clock=FakeClock())
    assert await waits(pacer, 5) == [0.0] * 5
    assert pacer.rate(KEY) is None


async def test_a_configured_limit_spaces_attempts_at_its_rate_less_headroom() -> None:
    pacer = ProviderPacer(requests_per_minute=120, headroom=0.0, clock=FakeClock())
    # 2 per second, a burst of 2: the third waits half a second, the fourth a second.
    assert await waits(pacer, 4) == pytest.approx([0.0, 0.0, 0.5, 1.0])


async def test_a_wait_past_latest_is_refused_and_reserves_nothing() -> None:
    pacer = ProviderPacer(requests_per_minute=60, headroom=0.0, clock=FakeClock())
    await waits(pacer, 1)
    refused = await pacer.admit(KEY, ONE, earliest=0.0, latest=0.5)
    assert (refused.admitted, refused.wait) == (False, pytest.approx(1.0))
    assert await waits(pacer, 1) == pytest.approx([1.0])  # the refused slot was not taken


async def test_max_wait_bounds_a_call_without_total_timeout() -> None:
    pacer = ProviderPacer(requests_per_minute=60, headroom=0.0, max_wait=2.0, clock=FakeClock())
    await waits(pacer, 3)
    assert not (await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)).admitted


async def test_a_released_slot_goes_to_the_next_caller() -> None:
    pacer = ProviderPacer(requests_per_minute=60, headroom=0.0, clock=FakeClock())
    await waits(pacer, 1)
    second = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
    await pacer.release(second)
    assert await waits(pacer, 1) == pytest.approx([1.0])


async def test_headers_teach_the_rate_and_what_is_left() -> None:
    clock = FakeClock()
    pacer = ProviderPacer(headroom=0.0, clock=clock)
    first = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
    # 600 a minute (10/s); nothing left; full again in 1 s: the burst is 10.
    await pacer.observe(first, PaceOutcome(answered=True, headers=openai_headers(600, 0, "1s")))
    assert pacer.rate(KEY) == pytest.approx(10.0)
    assert await waits(pacer, 3) == pytest.approx([0.1, 0.2, 0.3])


async def test_headroom_paces_below_the_learned_limit() -> None:
    pacer = ProviderPacer(headroom=0.05, clock=FakeClock())
    ticket = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
    await pacer.observe(
        ticket, PaceOutcome(answered=True, headers=openai_headers(1200, 5, "750ms"))
    )
    assert pacer.rate(KEY) == pytest.approx(19.0)


async def test_a_late_header_counts_what_was_sent_since() -> None:
    clock = FakeClock()
    pacer = ProviderPacer(headroom=0.0, clock=clock)
    early = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
    await waits(pacer, 4)  # four more sent after it, before its answer came back
    clock.advance(0.5)
    # The provider had 5 left right after ``early``; 0.5 s at 10/s refilled 5; 4 were sent.
    headers = openai_headers(600, 5, "500ms")
    await pacer.observe(early, PaceOutcome(answered=True, headers=headers))
    assert await waits(pacer, 7) == pytest.approx([0.0] * 6 + [0.1])


async def test_a_header_never_raises_the_level() -> None:
    clock = FakeClock()
    pacer = ProviderPacer(headroom=0.0, clock=clock)
    ticket = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
    await pacer.observe(ticket, PaceOutcome(answered=True, headers=openai_headers(600, 0, "1s")))
    stale = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
    await pacer.observe(stale, PaceOutcome(answered=True, headers=openai_headers(600, 9, "100ms")))
    assert await waits(pacer, 1) == pytest.approx([0.2])


async def test_anthropic_headers_teach_input_tokens_too() -> None:
    clock = FakeClock()
    pacer = ProviderPacer(headroom=0.0, clock=clock)
    cost = {"requests": 1.0, "input_tokens": 600.0}
    ticket = await pacer.admit(KEY, cost, earliest=0.0, latest=math.inf)
    headers = {
        "anthropic-ratelimit-input-tokens-limit": "60000",
        "anthropic-ratelimit-input-tokens-remaining": "0",
        "anthropic-ratelimit-input-tokens-reset": "2026-01-01T00:00:01Z",
    }
    await pacer.observe(ticket, PaceOutcome(answered=True, headers=headers))
    assert pacer.rate(KEY, "input_tokens") == pytest.approx(1000.0)
    nxt = await pacer.admit(KEY, cost, earliest=0.0, latest=math.inf)
    assert nxt.wait == pytest.approx(0.6)


async def test_used_tokens_correct_the_estimate() -> None:
    pacer = ProviderPacer(tokens_per_minute=60_000, headroom=0.0, clock=FakeClock())
    cost = {"requests": 1.0, "tokens": 1000.0}
    ticket = await pacer.admit(KEY, cost, earliest=0.0, latest=math.inf)
    # It really used 3,000: 2,000 more than reserved, two seconds at 1,000/s.
    await pacer.observe(ticket, PaceOutcome(answered=True, used={"tokens": 3000.0}))
    nxt = await pacer.admit(KEY, cost, earliest=0.0, latest=math.inf)
    assert nxt.wait == pytest.approx(3.0)


async def test_a_bare_429_cuts_the_rate_to_decrease_times_the_send_rate() -> None:
    clock = FakeClock()
    pacer = ProviderPacer(decrease=0.5, recovery=10.0, clock=clock)
    tickets = [await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf) for _ in range(8)]
    await pacer.observe(tickets[-1], PaceOutcome(throttled=True))
    assert pacer.rate(KEY) == pytest.approx(4.0)  # 8 sent in the last second, halved
    # The refusals of attempts sent before the cut do not cut it again.
    await pacer.observe(tickets[0], PaceOutcome(throttled=True))
    assert pacer.rate(KEY) == pytest.approx(4.0)


async def test_answers_without_headers_climb_back_in_recovery_seconds() -> None:
    clock = FakeClock()
    pacer = ProviderPacer(decrease=0.5, recovery=10.0, clock=clock)
    tickets = [await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf) for _ in range(8)]
    await pacer.observe(tickets[0], PaceOutcome(throttled=True))
    clock.advance(5.0)
    later = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
    await pacer.observe(later, PaceOutcome(answered=True))
    assert pacer.rate(KEY) == pytest.approx(6.0)  # halfway back from 4 to 8


async def test_a_spent_quota_refuses_the_key_until_its_reset() -> None:
    clock = FakeClock()
    pacer = ProviderPacer(max_hold=86400.0, clock=clock)
    ticket = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
    await pacer.observe(ticket, PaceOutcome(quota_reset=7200.0))
    refused = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
    assert (refused.admitted, refused.quota_reset) == (False, pytest.approx(7200.0))
    assert (await pacer.admit("openai:other", ONE, earliest=0.0, latest=math.inf)).admitted
    clock.advance(7200.0)
    assert (await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)).admitted


async def test_a_quota_without_a_reset_is_held_for_quota_hold() -> None:
    clock = FakeClock()
    pacer = ProviderPacer(quota_hold=600.0, clock=clock)
    ticket = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
    await pacer.observe(ticket, PaceOutcome(quota_reset=math.inf))
    refused = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
    assert refused.quota_reset == pytest.approx(600.0)


async def test_a_slot_leaves_room_for_the_typical_answer_time() -> None:
    clock = FakeClock()
    pacer = ProviderPacer(requests_per_minute=60, headroom=0.0, clock=clock)
    ticket = await pacer.admit(KEY, ONE, earliest=0.0, latest=math.inf)
    clock.advance(2.0)  # answers take 2 s
    await pacer.observe(ticket, PaceOutcome(answered=True))
    await waits(pacer, 1)
    # The next slot is 1 s away: with 2 s of answer it would end at 3 s, past 2.5 s.
    assert not (await pacer.admit(KEY, ONE, earliest=0.0, latest=2.5)).admitted
    assert (await pacer.admit(KEY, ONE, earliest=0.0, latest=3.0)).admitted


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("requests_per_minute", 0, "requests_per_minute must be > 0"),
        ("headroom", 1.0, "headroom must be < 1"),
        ("decrease", 1.5, "decrease must be < 1"),
        ("recovery", 0, "recovery must be > 0"),
        ("max_wait", -1, "max_wait must be >= 0"),
        ("learn_from_headers", "yes", "learn_from_headers must be a bool"),
    ],
)
def test_bad_settings_are_refused_by_name(option: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ProviderPacer(**{option: value})
