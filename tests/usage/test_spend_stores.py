"""Every spend store keeps the same rules: scopes, windows, holds, settling."""

from __future__ import annotations

import asyncio

from steadyflow.usage.spend import Charge, SpendCheck, SpendEntry, SpendStore, Who

ALICE_1, ALICE_2 = Who("app", "alice", "s1", "e-1"), Who("app", "alice", "s2", "e-2")
BOB = Who("app", "bob", "s3", "e-3")
DAY = 86400.0


def tokens(limit: int, scope: str = "user", seconds: float = DAY) -> SpendCheck:
    return SpendCheck(scope, scope, seconds, None, limit)  # type: ignore[arg-type]


def hold(hold_id: str, who: Who, amount: int, now: float) -> SpendEntry:
    """A reservation of ``amount`` tokens (and ten nanodollars a token) at ``now``."""
    return SpendEntry(
        hold_id,
        who.app,
        who.user,
        who.session,
        who.invocation,
        "m",
        now,
        amount * 10,
        amount,
        "reserved",
        now + 600.0,
    )


async def reserve(store: SpendStore, hold_id: str, who: Who, amount: int, check, now=100.0):
    return await store.reserve(hold(hold_id, who, amount, now), [check])


async def test_a_user_limit_counts_every_session_of_the_user_and_no_one_else(spend_store):
    check = tokens(100)
    assert await reserve(spend_store, "h1", ALICE_1, 60, check) is None
    refusal = await reserve(spend_store, "h2", ALICE_2, 50, check)
    assert refusal is not None and refusal.spent == Charge(600, 60)
    assert await reserve(spend_store, "h3", BOB, 90, check) is None


async def test_a_session_limit_counts_only_its_session(spend_store):
    check = tokens(100, "session")
    assert await reserve(spend_store, "h1", ALICE_1, 90, check) is None
    assert await reserve(spend_store, "h2", ALICE_2, 90, check) is None
    assert await reserve(spend_store, "h3", ALICE_1, 20, check) is not None


async def test_an_app_limit_counts_everyone(spend_store):
    check = tokens(100, "app")
    assert await reserve(spend_store, "h1", ALICE_1, 60, check) is None
    assert await reserve(spend_store, "h2", BOB, 50, check) is not None


async def test_settling_replaces_the_estimate_and_a_dropped_hold_frees_it(spend_store):
    check = tokens(100)
    assert await reserve(spend_store, "h1", ALICE_1, 90, check) is None
    await spend_store.settle("h1", ALICE_1, Charge(300, 30), 101.0)
    assert await reserve(spend_store, "h2", ALICE_1, 70, check) is None
    await spend_store.settle("h2", ALICE_1, None, 102.0)  # nothing was used
    assert await reserve(spend_store, "h3", ALICE_1, 70, check) is None
    entries = await spend_store.entries("app", 0.0)
    assert [(e.id, e.tokens, e.cost_nano) for e in entries] == [("h1", 30, 300)]


async def test_spend_leaves_the_window_as_it_slides(spend_store):
    check = tokens(100, seconds=3600.0)
    assert await reserve(spend_store, "h1", ALICE_1, 90, check, now=1000.0) is None
    await spend_store.settle("h1", ALICE_1, Charge(900, 90), 1001.0)
    assert await reserve(spend_store, "h2", ALICE_1, 90, check, now=4500.0) is not None
    assert await reserve(spend_store, "h3", ALICE_1, 90, check, now=4601.0) is None


async def test_a_hold_never_settled_lapses(spend_store):
    check = tokens(100)
    assert await reserve(spend_store, "h1", ALICE_1, 90, check, now=100.0) is None
    assert await reserve(spend_store, "h2", ALICE_1, 90, check, now=200.0) is not None
    assert await reserve(spend_store, "h3", ALICE_1, 90, check, now=701.0) is None  # 600 s on


async def test_a_cost_limit_counts_nanodollars(spend_store):
    check = SpendCheck("user", "user", DAY, 1000, None)
    assert await reserve(spend_store, "h1", ALICE_1, 60, check) is None  # 600 nanodollars
    refusal = await reserve(spend_store, "h2", ALICE_1, 41, check)
    assert refusal is not None and refusal.check is check


async def test_concurrent_reservations_never_admit_more_than_the_limit(spend_store):
    check = tokens(1000)
    results = await asyncio.gather(
        *(reserve(spend_store, f"h{i}", ALICE_1, 100, check) for i in range(25))
    )
    assert sum(1 for r in results if r is None) == 10


async def test_holds_settled_out_of_order_count_in_their_own_time(spend_store):
    check = tokens(100, seconds=150.0)
    assert await reserve(spend_store, "h1", ALICE_1, 30, check, now=100.0) is None
    assert await reserve(spend_store, "h2", ALICE_1, 30, check, now=200.0) is None
    await spend_store.settle("h2", ALICE_1, Charge(200, 20), 201.0)  # the later one ends first
    await spend_store.settle("h1", ALICE_1, Charge(400, 40), 202.0)
    refusal = await reserve(spend_store, "h3", ALICE_1, 70, check, now=240.0)
    assert refusal is not None and refusal.spent == Charge(600, 60)  # both in the window
    refusal = await reserve(spend_store, "h4", ALICE_1, 90, check, now=260.0)
    assert refusal is not None and refusal.spent == Charge(200, 20)  # h1 has left it
    assert await reserve(spend_store, "h5", ALICE_1, 80, check, now=261.0) is None
