"""What the retry loop asks of a retry budget, a circuit breaker and a pacer: their Protocols.

Declared apart from the implementations (``_budget.py``, ``_breaker.py``,
``_redis_budget.py``, ``_pacer.py``) so that ``RetryConfig``, a plain value,
depends only on the interface: any object with these methods fits, and the
config module imports no budget, breaker or pacer code. The pacer's two
value types (``PacePass``, ``PaceOutcome``) are here for the same reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

__all__ = ["Breaker", "PaceOutcome", "PacePass", "Pacer", "RetryBudget"]


@runtime_checkable
class RetryBudget(Protocol):
    """What the retry loop asks a budget, per key (``provider:model`` by default).

    ``record`` is called after every attempt, before ``allow`` is asked
    about the retry that may follow it.
    """

    async def allow(self, key: str, *, retry: bool) -> bool:
        """Whether an attempt may start; ``retry`` is False for a first attempt."""
        ...

    async def record(self, key: str, *, failed: bool) -> None:
        """How an attempt ended: ``failed`` means a transient (retryable) failure.

        A response, or an error the provider did not call transient (a 400),
        is not a failure: the provider was healthy enough to answer.
        """
        ...


@runtime_checkable
class Breaker(Protocol):
    """What the retry loop asks a circuit breaker, per key."""

    async def acquire(self, key: str) -> None:
        """Let a call through, or raise ``CircuitOpenError`` when the circuit is open."""
        ...

    async def record(self, key: str, *, failed: bool) -> None:
        """How a let-through call ended; ``failed`` means a transient failure."""
        ...


@dataclass(frozen=True, slots=True)
class PacePass:
    """A pacer's answer to one attempt: when it may be sent, or why it may not.

    Attributes:
        key: the pacer key (``provider:model``).
        admitted: the attempt may be sent after ``wait``; False: nothing was reserved.
        wait: seconds from the request until the attempt may be sent (refused:
            what it would have needed, ``inf`` when no time would do).
        cost: what the attempt was charged, by dimension (``requests``,
            ``tokens``, ``input_tokens``, ``output_tokens``).
        quota_reset: refused because the key's quota is spent: seconds until its reset.
        marks: the pacer's own bookkeeping, handed back with the outcome.
    """

    key: str
    admitted: bool
    wait: float = 0.0
    cost: Mapping[str, float] = field(default_factory=lambda: {})
    quota_reset: float | None = None
    marks: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class PaceOutcome:
    """How a paced attempt ended, as the pacer learns from it.

    Attributes:
        answered: the provider answered it (a response, not an error).
        headers: the answer's or the error's headers, names lower-cased.
        throttled: the provider refused it for its rate (a 429 that is not a quota).
        quota_reset: the provider said a quota is spent: seconds until its
            reset (``inf`` when it named none).
        used: what the attempt really used, by dimension, when the provider said.
    """

    answered: bool = False
    headers: Mapping[str, str] = field(default_factory=lambda: {})
    throttled: bool = False
    quota_reset: float | None = None
    used: Mapping[str, float] | None = None


@runtime_checkable
class Pacer(Protocol):
    """What the retry loop asks a pacer, per key, around every attempt.

    ``admit`` before the attempt (the loop then waits ``wait`` through its
    clock), then exactly one of ``release`` (the attempt was not sent: the
    call was cancelled or refused elsewhere) or ``observe`` (it was sent).
    """

    async def admit(
        self, key: str, cost: Mapping[str, float], *, earliest: float, latest: float
    ) -> PacePass:
        """Reserve a slot at least ``earliest`` and at most ``latest`` seconds from now."""
        ...

    async def release(self, ticket: PacePass) -> None:
        """Give back an admitted attempt that was never sent."""
        ...

    async def observe(self, ticket: PacePass, outcome: PaceOutcome) -> None:
        """Learn from how an admitted attempt ended."""
        ...
