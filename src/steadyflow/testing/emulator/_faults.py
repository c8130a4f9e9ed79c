"""Faults the emulator injects: which request fails, and how.

A ``Fault`` says what goes wrong (an HTTP status with its headers and body,
a connection reset before any header, a delay past the client's timeout, an
SSE stream that breaks after N chunks, malformed JSON) and when: on given
request numbers (counted per provider endpoint, from 1), with a seeded
probability, or, when neither is given, on every request.

Faults also have a one-line text form for the command line::

    429@1,retry_after=2     503@2     reset@3     break@1,after=1
    delay@1,seconds=5       malformed@4     503%0.2     401
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, cast

from ...errors import ConfigurationError
from ._model import EmulatedRequest

__all__ = ["Fault", "FaultKind", "FaultPlan", "as_fault", "parse_fault"]

FaultKind = Literal["status", "reset", "delay", "break", "malformed"]
"""What a fault does: an error status, a reset, a delay, a broken stream, a malformed body."""
_KINDS = ("reset", "delay", "break", "malformed")


def _numbers(on: int | Iterable[int] | None) -> tuple[int, ...] | None:
    if on is None:
        return None
    numbers = (on,) if isinstance(on, int) else tuple(on)
    for n in numbers:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"fault request numbers must be ints >= 1, got {n!r}")
    return numbers


@dataclass(frozen=True, kw_only=True)
class Fault:
    """One injected failure and the requests it applies to.

    Build faults with the class methods (``Fault.http(503, on=2)``,
    ``Fault.reset(on=1)``, ``Fault.delay(5.0)``, ``Fault.stream_break(1)``,
    ``Fault.malformed()``) rather than the constructor.

    Attributes:
        kind: what goes wrong.
        status: the HTTP status of a ``status`` fault.
        headers: extra response headers of a ``status`` fault.
        body: the error body; None for the provider's own error shape.
        message: the error message inside the provider's error shape.
        retry_delay: Gemini ``RetryInfo.retryDelay`` (e.g. ``"2s"``) in the body.
        seconds: how long a ``delay`` fault stalls before the response head.
        after_chunks: content chunks sent before a ``break`` fault hangs up.
        on: request numbers (per endpoint, 1-based) the fault applies to.
        probability: chance of applying to any request (seeded plan).
        provider: only requests to this provider's endpoint.
        stream: only streamed (True) or only non-streamed (False) requests.
    """

    kind: FaultKind
    status: int = 0
    headers: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    body: Any = None
    message: str | None = None
    retry_delay: str | None = None
    seconds: float = 0.0
    after_chunks: int = 0
    on: tuple[int, ...] | None = None
    probability: float | None = None
    provider: str | None = None
    stream: bool | None = None

    def __post_init__(self) -> None:
        if self.kind == "status" and not 400 <= self.status <= 599:
            raise ValueError(f"an HTTP fault needs a status 400-599, got {self.status!r}")
        if self.probability is not None and not 0.0 <= self.probability <= 1.0:
            raise ValueError(f"fault probability must be within [0, 1], got {self.probability!r}")
        if self.seconds < 0 or self.after_chunks < 0:
            raise ValueError("fault seconds and after_chunks must be >= 0")
        object.__setattr__(self, "headers", MappingProxyType(dict(self.headers)))

    @classmethod
    def http(
        cls,
        status: int,
        *,
        retry_after: float | str | None = None,
        retry_after_ms: int | None = None,
        retry_delay: str | None = None,
        should_retry: bool | None = None,
        headers: Mapping[str, str] | None = None,
        body: Any = None,
        message: str | None = None,
        on: int | Iterable[int] | None = None,
        probability: float | None = None,
        provider: str | None = None,
        stream: bool | None = None,
    ) -> Fault:
        """An error status. ``retry_after`` is seconds or an HTTP date string."""
        all_headers = dict(headers or {})
        if retry_after is not None:
            all_headers["retry-after"] = str(retry_after)
        if retry_after_ms is not None:
            all_headers["retry-after-ms"] = str(retry_after_ms)
        if should_retry is not None:
            all_headers["x-should-retry"] = "true" if should_retry else "false"
        return cls(
            kind="status",
            status=status,
            headers=all_headers,
            body=body,
            message=message,
            retry_delay=retry_delay,
            on=_numbers(on),
            probability=probability,
            provider=provider,
            stream=stream,
        )

    @classmethod
    def reset(cls, **when: Any) -> Fault:
        """The connection is reset (TCP RST) after the request, before any header."""
        return cls._of("reset", **when)

    @classmethod
    def delay(cls, seconds: float, **when: Any) -> Fault:
        """Stall ``seconds`` before answering (past a client's read timeout)."""
        return cls._of("delay", seconds=float(seconds), **when)

    @classmethod
    def stream_break(cls, after_chunks: int = 0, **when: Any) -> Fault:
        """Hang up after ``after_chunks`` content chunks (0: right after the head).

        On a non-streamed request the body is cut in half instead.
        """
        return cls._of("break", after_chunks=after_chunks, **when)

    @classmethod
    def malformed(cls, **when: Any) -> Fault:
        """Answer 200 with a body (or SSE event) that is not valid JSON."""
        return cls._of("malformed", **when)

    @classmethod
    def _of(cls, kind: FaultKind, **fields: Any) -> Fault:
        if "on" in fields:
            fields["on"] = _numbers(fields["on"])
        return cls(kind=kind, **fields)

    def applies_to(self, request: EmulatedRequest, rng: random.Random) -> bool:
        """Whether this fault hits ``request`` (draws from ``rng`` when probabilistic)."""
        if self.provider is not None and self.provider != request.provider:
            return False
        if self.stream is not None and self.stream != request.stream:
            return False
        if self.on is not None:
            return request.number in self.on
        if self.probability is not None:
            return rng.random() < self.probability
        return True


class FaultPlan:
    """The faults of one emulator, checked in order; the first that applies wins."""

    def __init__(self, faults: Sequence[Fault | str] = (), seed: int | None = 0) -> None:
        if isinstance(faults, str):
            raise ConfigurationError(f"faults is a list of faults; wrap it: faults=[{faults!r}]")
        self.faults = [as_fault(fault) for fault in faults]
        self._rng = random.Random(seed)

    def add(self, fault: Fault | str) -> None:
        """Append a fault or its text form (checked after the existing ones)."""
        self.faults.append(as_fault(fault))

    def pick(self, request: EmulatedRequest) -> Fault | None:
        """The fault to inject for ``request``, if any."""
        for fault in self.faults:
            if fault.applies_to(request, self._rng):
                return fault
        return None


_FLOAT_KEYS = {"retry_after": float, "seconds": float, "probability": float}
_INT_KEYS = {"retry_after_ms": int, "after": int}


def _parse_when(head: str) -> tuple[str, dict[str, Any]]:
    if "@" in head:
        kind, _, numbers = head.partition("@")
        return kind, {"on": tuple(int(n) for n in numbers.split("+"))}
    if "%" in head:
        kind, _, chance = head.partition("%")
        return kind, {"probability": float(chance)}
    return head, {}


def as_fault(fault: Fault | str) -> Fault:
    """``fault``, or the fault its text form names (as ``--emulator-fault`` reads it).

    Raises:
        ConfigurationError: a bad text form, or neither a ``Fault`` nor a string.
    """
    if isinstance(fault, Fault):
        return fault
    if isinstance(fault, str):
        return parse_fault(fault)
    raise ConfigurationError(
        f"a fault is a Fault or its text form such as '429@1,retry_after=1', got {fault!r}"
    )


def parse_fault(spec: str) -> Fault:
    """A fault from its text form (see the module docstring).

    Raises:
        ConfigurationError: naming the part of ``spec`` that could not be read
            (a ``ValueError`` too).
    """
    head, *options = [p.strip() for p in spec.split(",") if p.strip()]
    try:
        kind, fields = _parse_when(head)
        for option in options:
            key, sep, value = option.partition("=")
            if not sep:
                raise ValueError(f"option {option!r} is not key=value")
            if key in _FLOAT_KEYS:
                fields[key] = _FLOAT_KEYS[key](value)
            elif key in _INT_KEYS:
                fields["after_chunks" if key == "after" else key] = _INT_KEYS[key](value)
            elif key == "should_retry" or key == "stream":
                fields[key] = value.lower() in ("1", "true", "yes")
            elif key in ("retry_delay", "provider", "message"):
                fields[key] = value
            else:
                raise ValueError(f"unknown fault option {key!r}")
        if kind.isdigit():
            return Fault.http(int(kind), **fields)
        if kind not in _KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; use a status or one of {_KINDS}")
        # This module's parser builds a fault the way Fault's constructors do.
        return Fault._of(cast(FaultKind, kind), **fields)  # pyright: ignore[reportPrivateUsage]
    except (TypeError, ValueError) as exc:
        raise ConfigurationError(f"bad fault spec {spec!r}: {exc}") from exc
