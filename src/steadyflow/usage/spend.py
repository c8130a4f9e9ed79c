"""Spend limits across invocations: the store protocol and the gate the meter asks.

A spend store keeps one *entry* per model attempt: who (app, user,
session, invocation), which model, when, and what it cost (tokens, and US
dollars as integer nanodollars: exact sums in every database and in Redis'
Lua). Before an attempt, ``reserve`` checks every ``SpendLimit`` against the
entries of its scope inside its window, and adds a *reserved* entry holding
the attempt's estimate, in one atomic step (a lock or transaction per
store, a Lua script in Redis); after the attempt, ``settle`` replaces the
estimate by what was used (or drops the entry when nothing was reported).

The estimate is the attempt's worst case (``steadyflow.usage._meter``:
its estimated input plus ``max_output_tokens`` or the model's output
ceiling), so a burst of concurrent calls cannot overspend: each admission
saw every earlier reservation, and no call in flight can use more than it
reserved beyond the input estimate's error. A limit with
``allow_overshoot=True`` reserves only the input of a call that sets no
``max_output_tokens``: those calls may overspend by their answers. A
reservation left by a process that died lapses after ``hold_seconds``, so
a crash never holds a budget for longer.

Stores: ``InMemorySpendStore`` (one process), ``SqlSpendStore`` (the
session database, ``steadyflow.sessions.sql``), ``RedisSpendStore``
(fleets, ``steadyflow.usage.redis``). ``Runner(spend_store=...)`` picks one;
by default the runner uses its session database when it is SQL, else one
in-memory store per session service.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal, Protocol

from ..errors import UsageLimitExceededError
from ..types import UsageMetadata
from ._estimate import Estimate
from .limits import SpendLimit, SpendScope

__all__ = [
    "Charge",
    "Refusal",
    "SpendCheck",
    "SpendEntry",
    "SpendLimits",
    "SpendStore",
    "Who",
    "from_nano",
    "to_nano",
]

_NANO = Decimal(10) ** 9


def to_nano(cost: Decimal | None) -> int:
    """US dollars as integer nanodollars (rounded half up); None is 0."""
    if cost is None:
        return 0
    return int((cost * _NANO).to_integral_value(rounding=ROUND_HALF_UP))


def from_nano(nano: int) -> Decimal:
    """Integer nanodollars as US dollars."""
    return Decimal(nano) / _NANO


@dataclass(frozen=True, slots=True)
class Who:
    """Whose spend an attempt is: the app, the user, the session, the invocation."""

    app: str
    user: str
    session: str
    invocation: str = ""


@dataclass(frozen=True, slots=True)
class Charge:
    """What an attempt costs (or may cost): nanodollars and tokens."""

    cost_nano: int = 0
    tokens: int = 0


@dataclass(frozen=True, slots=True)
class SpendCheck:
    """One ``SpendLimit`` as a store checks it (money in nanodollars)."""

    name: str
    scope: SpendScope
    seconds: float
    max_cost_nano: int | None
    max_tokens: int | None

    @property
    def label(self) -> str:
        """How errors name the limit: ``"user:max_cost"``, else ``"user:max_total_tokens"``."""
        bound = "max_cost" if self.max_cost_nano is not None else "max_total_tokens"
        return f"{self.name}:{bound}"

    @classmethod
    def of(cls, limit: SpendLimit) -> SpendCheck:
        """The check of ``limit``."""
        cost = None if limit.max_cost is None else to_nano(limit.max_cost)
        return cls(limit.name, limit.scope, limit.seconds, cost, limit.max_total_tokens)

    def refuses(self, spent: Charge, estimate: Charge) -> bool:
        """Whether ``estimate`` on top of ``spent`` would cross this limit."""
        cost, tokens = self.max_cost_nano, self.max_tokens
        if cost is not None and spent.cost_nano + estimate.cost_nano > cost:
            return True
        return tokens is not None and spent.tokens + estimate.tokens > tokens

    def matches(self, entry: SpendEntry, hold: SpendEntry) -> bool:
        """Whether ``entry`` is in this limit's scope for the attempt ``hold`` is for."""
        if entry.app != hold.app:
            return False
        if self.scope == "app":
            return True
        if entry.user != hold.user:
            return False
        return self.scope == "user" or entry.session == hold.session


@dataclass(frozen=True, slots=True)
class Refusal:
    """A limit that refused: the check and what its scope had spent in its window."""

    check: SpendCheck
    spent: Charge


@dataclass(frozen=True, slots=True)
class SpendEntry:
    """One attempt in a spend store (``state``: ``reserved`` or ``charged``)."""

    id: str
    app: str
    user: str
    session: str
    invocation: str
    model: str
    at: float
    cost_nano: int
    tokens: int
    state: Literal["reserved", "charged"] = "charged"
    expires_at: float | None = None

    def counts(self, since: float, now: float) -> bool:
        """Whether the entry counts in a window starting at ``since`` (live holds do)."""
        if self.at <= since:
            return False
        return self.state == "charged" or (self.expires_at or 0.0) > now

    @property
    def cost(self) -> Decimal:
        """US dollars."""
        return from_nano(self.cost_nano)

    @property
    def charge(self) -> Charge:
        """What the entry holds or charges."""
        return Charge(self.cost_nano, self.tokens)


class SpendStore(Protocol):
    """Where spend entries live; see the module docstring for the guarantees.

    A store whose writes never wait (``InMemorySpendStore``) may also offer
    a synchronous ``settle_now`` with ``settle``'s arguments: the meter then
    settles in place instead of in a background task.
    """

    async def reserve(self, hold: SpendEntry, checks: Sequence[SpendCheck]) -> Refusal | None:
        """Atomically: the first check ``hold`` would cross, or store ``hold`` (now: its ``at``)."""
        ...

    async def settle(self, hold_id: str, who: Who, actual: Charge | None, now: float) -> None:
        """Turn the hold into a charge of ``actual``; drop it when ``actual`` is None."""
        ...

    async def entries(self, app: str | None, since: float) -> list[SpendEntry]:
        """Charged entries after ``since`` (of ``app``, or every app), for reports."""
        ...


class SpendLimits:
    """The gate of one invocation's spend limits (the meter's ``SpendGate``).

    Args:
        limits: the run's ``SpendLimit`` values (at least one).
        store: where spend is kept.
        who: whose spend it is.
        hold_seconds: how long a reservation counts if never settled.
        clock: wall-clock seconds (injectable for tests).
    """

    def __init__(
        self,
        limits: Sequence[SpendLimit],
        store: SpendStore,
        who: Who,
        *,
        hold_seconds: float = 600.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.checks = [SpendCheck.of(limit) for limit in limits]
        self.store, self.who = store, who
        # A store whose writes never wait settles in place: no task per attempt.
        self._settle_now: Callable[[str, Who, Charge | None, float], None] | None = getattr(
            store, "settle_now", None
        )
        self._hold_seconds, self._clock = hold_seconds, clock
        self.needs_cost = any(check.max_cost_nano is not None for check in self.checks)
        hard = [
            check
            for check, limit in zip(self.checks, limits, strict=True)
            if not limit.allow_overshoot
        ]
        self.hard_limit = None if not hard else hard[0].label

    async def reserve(self, estimate: Estimate, model: str, call: str) -> Any:
        """Hold ``estimate`` in the store, or raise ``UsageLimitExceededError``."""
        who, now = self.who, self._clock()
        hold = SpendEntry(
            "h-" + os.urandom(12).hex(),
            who.app,
            who.user,
            who.session,
            who.invocation,
            model,
            now,
            to_nano(estimate.cost),
            estimate.total_tokens,
            "reserved",
            now + self._hold_seconds,
        )
        refusal = await self.store.reserve(hold, self.checks)
        if refusal is not None:
            raise _refused(refusal, estimate, call)
        return hold.id

    async def settle(self, hold: Any, usage: UsageMetadata | None, cost: Decimal | None) -> None:
        """Charge what the attempt used in place of its hold."""
        await self.store.settle(str(hold), self.who, _actual(usage, cost), self._clock())

    def settle_now(self, hold: Any, usage: UsageMetadata | None, cost: Decimal | None) -> bool:
        """``settle`` at once where the store never waits; False: await ``settle`` instead."""
        if self._settle_now is None:
            return False
        self._settle_now(str(hold), self.who, _actual(usage, cost), self._clock())
        return True


def _actual(usage: UsageMetadata | None, cost: Decimal | None) -> Charge | None:
    """What an attempt used, as a store charges it (None: nothing was reported)."""
    if usage is None:
        return None
    return Charge(to_nano(cost), usage.input_tokens + usage.output_tokens)


def _refused(refusal: Refusal, estimate: Estimate, call: str) -> UsageLimitExceededError:
    check, spent = refusal.check, refusal.spent
    if check.max_cost_nano is not None and (
        spent.cost_nano + to_nano(estimate.cost) > check.max_cost_nano
    ):
        return UsageLimitExceededError(
            f"{check.name}:max_cost",
            from_nano(check.max_cost_nano),
            from_nano(spent.cost_nano),
            estimate.cost or Decimal(0),
            call,
            unit="usd",
            window=check.seconds,
            detail=f"for {estimate.total_tokens} tokens: {estimate.describe()}",
        )
    return UsageLimitExceededError(
        f"{check.name}:max_total_tokens",
        check.max_tokens or 0,
        spent.tokens,
        estimate.total_tokens,
        call,
        window=check.seconds,
        detail=estimate.describe(),
    )
