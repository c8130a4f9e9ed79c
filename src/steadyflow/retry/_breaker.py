"""``CircuitBreaker``: stop calling a model that keeps failing, and probe until it heals.

A budget limits *retries*; a breaker limits *calls*. When most recent calls
to a model fail transiently, further calls are pointless load on a provider
that is down, and slow for the user who waits through them. An open circuit
fails a call at once with ``CircuitOpenError`` (the retry loop never retries
it, but a ``FallbackLlm`` moves on to its next model).

States, per key (``provider:model`` by default)::

    CLOSED --(calls >= minimum_calls and failure rate >= threshold in window)--> OPEN
    OPEN --(open_for elapsed)--> HALF_OPEN
    HALF_OPEN --(half_open_probes successes)--> CLOSED
    HALF_OPEN --(any failure)--> OPEN

In half-open only ``half_open_probes`` calls are let through; others fail
fast. Probes that never report (a cancelled call) are given up on after
another ``open_for``, and new probes are let through.
"""

from __future__ import annotations

import enum
import threading
from dataclasses import dataclass
from datetime import timedelta
from typing import Self

from ..errors import CircuitOpenError
from . import _validate
from ._clock import Clock, current_clock
from ._protocols import Breaker
from ._window import SlidingCounts

__all__ = ["Breaker", "CircuitBreaker", "CircuitState", "open_circuit_error"]


class CircuitState(enum.Enum):
    """Where a circuit is: calls flow (closed), fail fast (open), or probe (half-open)."""

    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


def open_circuit_error(key: str, retry_after: float | None) -> CircuitOpenError:
    """The error a call to ``key`` fails with while its circuit is open."""
    when = "" if retry_after is None else f"; probing again in {retry_after:.3g}s"
    return CircuitOpenError(
        f"circuit for {key} is open after repeated transient failures{when}",
        provider=key.partition(":")[0] or None,
        retry_after=retry_after,
    )


@dataclass
class _Circuit:
    window: SlidingCounts
    state: CircuitState = CircuitState.CLOSED
    since: float = 0.0  # when the current state began
    probes_issued: int = 0
    probes_passed: int = 0


class CircuitBreaker:
    """A failure-rate circuit breaker per key, on an injectable clock.

    Args:
        failure_rate_threshold: open when this fraction of the calls in the
            window failed transiently (0 < t <= 1).
        window: seconds of call history the rate is computed over.
        minimum_calls: calls the window needs before the rate counts.
        open_for: seconds an open circuit fails fast before probing.
        half_open_probes: calls let through while half-open; all must
            succeed to close the circuit.
        clock: where time is read; default ``current_clock()``.
    """

    def __init__(
        self,
        failure_rate_threshold: float = 0.5,
        window: float | timedelta = 60.0,
        minimum_calls: int = 20,
        open_for: float | timedelta = 30.0,
        half_open_probes: int = 3,
        *,
        clock: Clock | None = None,
    ) -> None:
        owner = "CircuitBreaker"
        threshold = _validate.number(
            owner, "failure_rate_threshold", failure_rate_threshold, minimum=0.0, inclusive=False
        )
        if threshold > 1:
            raise ValueError(f"{owner}: failure_rate_threshold must be <= 1, got {threshold!r}")
        self.failure_rate_threshold = threshold
        self.window = _validate.seconds(owner, "window", window, positive=True)
        self.minimum_calls = _validate.count(owner, "minimum_calls", minimum_calls)
        self.open_for = _validate.seconds(owner, "open_for", open_for, positive=False)
        self.half_open_probes = _validate.count(owner, "half_open_probes", half_open_probes)
        self._clock = clock
        self._circuits: dict[str, _Circuit] = {}
        self._lock = threading.Lock()

    def __deepcopy__(self, memo: dict[int, object]) -> Self:
        return self  # shared state: a copied RetryConfig must share it too

    def __repr__(self) -> str:
        return (
            f"CircuitBreaker(failure_rate_threshold={self.failure_rate_threshold:g}, "
            f"window={self.window:g}, minimum_calls={self.minimum_calls}, "
            f"open_for={self.open_for:g}, half_open_probes={self.half_open_probes})"
        )

    def now(self) -> float:
        """The time transitions are judged at."""
        return (self._clock or current_clock()).monotonic()

    def state(self, key: str) -> CircuitState:
        """The state of ``key``'s circuit now (an elapsed open turns half-open)."""
        with self._lock:
            circuit = self._circuit(key)
            self._advance(circuit, self.now())
            return circuit.state

    async def acquire(self, key: str) -> None:
        """Let a call through or raise ``CircuitOpenError``."""
        now = self.now()
        with self._lock:
            circuit = self._circuit(key)
            self._advance(circuit, now)
            if circuit.state is CircuitState.CLOSED:
                return
            if circuit.state is CircuitState.HALF_OPEN:
                if circuit.probes_issued < self.half_open_probes:
                    circuit.probes_issued += 1
                    return
                raise open_circuit_error(key, None)
            raise open_circuit_error(key, circuit.since + self.open_for - now)

    async def record(self, key: str, *, failed: bool) -> None:
        """Count the outcome; open, close or reopen the circuit as it dictates."""
        now = self.now()
        with self._lock:
            circuit = self._circuit(key)
            self._advance(circuit, now)
            if circuit.state is CircuitState.HALF_OPEN:
                if failed:
                    self._enter(circuit, CircuitState.OPEN, now)
                    return
                circuit.probes_passed += 1
                if circuit.probes_passed >= self.half_open_probes:
                    self._enter(circuit, CircuitState.CLOSED, now)
                return
            if circuit.state is CircuitState.OPEN:
                return  # a call let through before the circuit opened
            circuit.window.add(now, 1, 1 if failed else 0)
            calls, failures = circuit.window.totals(now)
            if calls >= self.minimum_calls and failures / calls >= self.failure_rate_threshold:
                self._enter(circuit, CircuitState.OPEN, now)

    def _circuit(self, key: str) -> _Circuit:
        circuit = self._circuits.get(key)
        if circuit is None:
            circuit = self._circuits[key] = _Circuit(SlidingCounts(self.window))
        return circuit

    def _advance(self, circuit: _Circuit, now: float) -> None:
        """Apply the transitions time alone makes: open -> half-open, stale probes."""
        if circuit.state is CircuitState.OPEN and now >= circuit.since + self.open_for:
            self._enter(circuit, CircuitState.HALF_OPEN, now)
        elif circuit.state is CircuitState.HALF_OPEN and now >= circuit.since + self.open_for:
            circuit.probes_issued = circuit.probes_passed
            circuit.since = now

    @staticmethod
    def _enter(circuit: _Circuit, state: CircuitState, now: float) -> None:
        circuit.state = state
        circuit.since = now
        circuit.probes_issued = circuit.probes_passed = 0
        circuit.window.clear()
