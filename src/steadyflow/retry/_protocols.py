"""What the retry loop asks of a retry budget and a circuit breaker: their two Protocols.

Declared apart from the implementations (``_budget.py``, ``_breaker.py``,
``_redis_budget.py``) so that ``RetryConfig``, a plain value, depends only on
the interface: any object with these methods fits, and the config module
imports no budget or breaker code.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["Breaker", "RetryBudget"]


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
