"""``UsageLimits`` and ``SpendLimit``: what a run may spend, as plain validated values.

``UsageLimits`` bounds one invocation (``RunConfig.usage_limits``);
``SpendLimit`` bounds every invocation of a session, a user or the whole app
over a sliding time window (``RunConfig.spend_limits``). Both are hard by
default: every model attempt reserves its worst case first and is refused
with ``UsageLimitExceededError`` when it could cross them;
``allow_overshoot=True`` keeps the older, softer rule (see
``steadyflow.usage`` for the exact rules).

Money is US dollars as ``Decimal``: a float or int given is converted through
its decimal text (``0.1`` is ``Decimal("0.1")``), never through binary.
Invalid values raise ``ConfigurationError`` naming the field.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal, InvalidOperation
from typing import Any, Literal, cast

from ..errors import ConfigurationError

__all__ = ["SpendLimit", "SpendScope", "UsageLimits", "to_money"]

SpendScope = Literal["session", "user", "app"]
"""Whose spending a ``SpendLimit`` caps: one session, one user, or the whole app."""
_SCOPES = ("session", "user", "app")


def to_money(owner: str, name: str, value: object) -> Decimal:
    """``value`` (Decimal, int, float or decimal text) as a finite, non-negative ``Decimal``."""
    if isinstance(value, bool) or not isinstance(value, Decimal | int | float | str):
        raise ConfigurationError(f"{owner}: {name} must be a Decimal or a number, got {value!r}")
    try:
        money = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    except InvalidOperation:
        raise ConfigurationError(f"{owner}: {name} is not a number: {value!r}") from None
    if not money.is_finite() or money < 0:
        raise ConfigurationError(f"{owner}: {name} must be a finite amount >= 0, got {value!r}")
    return money


def _tokens(owner: str, name: str, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigurationError(f"{owner}: {name} must be an int >= 0 or None, got {value!r}")
    return value


def _money_or_none(owner: str, name: str, value: object) -> Decimal | None:
    return None if value is None else to_money(owner, name, value)


def _per_tool(owner: str, value: object) -> dict[str, int]:
    """``max_calls_per_tool`` checked, as a new dict of tool name to count."""
    if not isinstance(value, Mapping):
        raise ConfigurationError(
            f"{owner}: max_calls_per_tool must map tool names to counts, got {value!r}"
        )
    checked: dict[str, int] = {}
    for name, count in cast(Mapping[object, object], value).items():
        if not isinstance(name, str) or not name:
            raise ConfigurationError(
                f"{owner}: max_calls_per_tool keys must be tool names, got {name!r}"
            )
        limit = _tokens(owner, f"max_calls_per_tool[{name!r}]", count)
        if limit is None:
            raise ConfigurationError(
                f"{owner}: max_calls_per_tool[{name!r}] must be an int >= 0, got None"
            )
        checked[name] = limit
    return checked


_TOKEN_LIMITS = (
    "max_input_tokens",
    "max_output_tokens",
    "max_total_tokens",
    "max_request_input_tokens",
)
# The limits that are whole counts (tokens or calls), checked and stored alike.
_COUNTS = (*_TOKEN_LIMITS, "max_tool_calls")


def _flag(owner: str, name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise ConfigurationError(f"{owner}: {name} must be True or False, got {value!r}")


@dataclass(frozen=True, kw_only=True)
class UsageLimits:
    """Token and cost limits for one invocation, resumes included.

    Attributes:
        max_input_tokens: tokens the models may read (cached input included).
        max_output_tokens: tokens the models may write (reasoning included).
        max_total_tokens: input plus output.
        max_cost: US dollars (``Decimal``; a float or int is converted). Needs a
            price for every model called: the maintained list
            (``steadyflow[cost]``) or ``RunConfig.prices``.
        max_request_input_tokens: the input one request may have: a request
            whose input estimate is larger is refused before it is sent,
            whatever is left of the other limits.
        max_tool_calls: tool calls the invocation may run, all tools together.
        max_calls_per_tool: tool calls per tool name (``{"search": 3}``).
        allow_overshoot: False (the default): the limits are hard, every
            attempt reserves its worst case (estimated input plus
            ``max_output_tokens`` or the model's output ceiling) and one whose
            output has no known bound is refused with ``UnboundedOutputError``.
            True: an attempt with no ``max_output_tokens`` is admitted on its
            input alone, so one answer may cross a limit by its own length.

    ``None`` means no limit. Every attempt's reported usage counts, failed
    attempts' too. A tool call over a tool-call limit does not run: the
    model reads an error response saying which limit refused it, and the
    invocation goes on (see ``steadyflow.usage._tool_calls``).
    """

    max_input_tokens: int | None = None
    max_output_tokens: int | None = None
    max_total_tokens: int | None = None
    max_cost: Decimal | None = None
    max_request_input_tokens: int | None = None
    max_tool_calls: int | None = None
    max_calls_per_tool: Mapping[str, int] | None = field(default=None, hash=False)
    allow_overshoot: bool = False

    def __post_init__(self) -> None:
        owner = "UsageLimits"
        for name in _COUNTS:
            object.__setattr__(self, name, _tokens(owner, name, getattr(self, name)))
        object.__setattr__(self, "max_cost", _money_or_none(owner, "max_cost", self.max_cost))
        per_tool = self.max_calls_per_tool
        if per_tool is not None:
            object.__setattr__(self, "max_calls_per_tool", _per_tool(owner, per_tool))
        _flag(owner, "allow_overshoot", self.allow_overshoot)

    def to_dict(self) -> dict[str, Any]:
        """The limits that are set, JSON-ready (the cost as decimal text)."""
        data: dict[str, Any] = {}
        for name in _COUNTS:
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        if self.max_cost is not None:
            data["max_cost"] = str(self.max_cost)
        if self.max_calls_per_tool is not None:
            data["max_calls_per_tool"] = dict(self.max_calls_per_tool)
        if self.allow_overshoot:
            data["allow_overshoot"] = True
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> UsageLimits:
        """Read back what ``to_dict`` wrote."""
        return cls(**data)

    @property
    def bounds_model_calls(self) -> bool:
        """True when a token or cost limit is set: each model attempt is checked first."""
        return self.max_cost is not None or any(
            getattr(self, name) is not None for name in _TOKEN_LIMITS
        )

    @property
    def is_empty(self) -> bool:
        """True when no limit is set."""
        return (
            self.max_cost is None
            and self.max_calls_per_tool is None
            and all(getattr(self, name) is None for name in _COUNTS)
        )


@dataclass(frozen=True, kw_only=True)
class SpendLimit:
    """A cap on what a session, a user or the app spends over a sliding window.

    Attributes:
        scope: ``"session"``, ``"user"`` (all of the user's sessions of the
            app) or ``"app"`` (everyone).
        window: how far back spend counts (seconds or a ``timedelta``); the
            window slides: a call made 24 h ago leaves a one-day window now.
        max_cost: US dollars, or None.
        max_total_tokens: input plus output tokens, or None.
        name: how errors and ``steadyflow usage`` name the limit; default
            ``"<scope>"``.
        allow_overshoot: as for ``UsageLimits``: False (the default)
            reserves every attempt's worst case; True admits an attempt with
            no ``max_output_tokens`` on its input alone (one answer may cross
            the cap). An attempt reserves one amount in all its spend limits:
            the worst case when any of them is hard.

    At least one of ``max_cost`` and ``max_total_tokens`` is required.
    """

    scope: SpendScope
    window: timedelta = field(default=timedelta(days=1))
    max_cost: Decimal | None = None
    max_total_tokens: int | None = None
    name: str = ""
    allow_overshoot: bool = False

    def __post_init__(self) -> None:
        owner = "SpendLimit"
        if self.scope not in _SCOPES:
            raise ConfigurationError(f"{owner}: scope must be one of {_SCOPES}, got {self.scope!r}")
        window = self.window
        seconds = window.total_seconds() if isinstance(window, timedelta) else window
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise ConfigurationError(f"{owner}: window must be a timedelta, got {window!r}")
        if not math.isfinite(seconds) or seconds <= 0:
            raise ConfigurationError(f"{owner}: window must be > 0, got {window!r}")
        object.__setattr__(self, "window", timedelta(seconds=seconds))
        object.__setattr__(self, "max_cost", _money_or_none(owner, "max_cost", self.max_cost))
        tokens = _tokens(owner, "max_total_tokens", self.max_total_tokens)
        object.__setattr__(self, "max_total_tokens", tokens)
        if self.max_cost is None and self.max_total_tokens is None:
            raise ConfigurationError(f"{owner}: set max_cost, max_total_tokens or both")
        if not self.name:
            object.__setattr__(self, "name", self.scope)
        _flag(owner, "allow_overshoot", self.allow_overshoot)

    @property
    def seconds(self) -> float:
        """The window in seconds."""
        return self.window.total_seconds()
