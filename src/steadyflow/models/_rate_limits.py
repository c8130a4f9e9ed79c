"""What providers say about their rate limits and quotas, read from headers and error bodies.

Two header families are read, on answers and on errors alike:

- OpenAI (and Groq, Azure OpenAI): ``x-ratelimit-limit-requests``,
  ``x-ratelimit-remaining-requests``, ``x-ratelimit-reset-requests`` and the
  same three for ``-tokens``; resets are durations such as ``"1s"``,
  ``"6m0s"`` or ``"20ms"``: the time until the limit is back to full.
- Anthropic: ``anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-
  {limit,remaining,reset}``; resets are RFC 3339 times at which the limit is
  back to full.

Limits are per minute for both. A quota is told apart from a rate limit
(``quota_reset``): a 429 whose error says a daily or monthly quota is spent
(Gemini ``QuotaFailure`` ids with ``PerDay``/``PerMonth``, OpenAI's
``insufficient_quota``), or whose reset is at least ``QUOTA_RESET_SECONDS``
away, is a quota: waiting a few seconds will not help.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from .._json import is_array, is_object

__all__ = [
    "DIMENSIONS",
    "QUOTA_RESET_SECONDS",
    "Limit",
    "parse_duration",
    "quota_reset",
    "read_rate_limits",
]

DIMENSIONS = ("requests", "tokens", "input_tokens", "output_tokens")
"""What a limit counts; ``tokens`` is input plus output."""

QUOTA_RESET_SECONDS = 3600.0
"""A refusal that resets this far away (or further) is a spent quota, not a rate limit."""

_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_OPENAI = {d: d.replace("_", "-") for d in DIMENSIONS}


@dataclass(frozen=True, slots=True)
class Limit:
    """One limit as the provider reported it with an answer.

    Attributes:
        limit: how many per minute.
        remaining: how many are left right after this request.
        reset: seconds until the limit is back to full (None: not said).
    """

    limit: float
    remaining: float
    reset: float | None


def parse_duration(text: str) -> float | None:
    """Seconds in an OpenAI reset duration (``"1s"``, ``"6m0s"``, ``"1h2m3.5s"``, ``"20ms"``).

    A bare number counts as seconds; anything else is None.
    """
    text = text.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    position, total = 0, 0.0
    for match in _DURATION_PART.finditer(text):
        if match.start() != position:
            return None
        total += float(match[1]) * _UNIT_SECONDS[match[2]]
        position = match.end()
    return total if position == len(text) and position > 0 else None


def _rfc3339_in(text: str, now: float) -> float | None:
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - now)


def _number(text: str | None) -> float | None:
    """A finite count >= 0 (``inf`` and ``nan`` are not counts: None)."""
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def read_rate_limits(headers: Mapping[str, str], now: float | None = None) -> dict[str, Limit]:
    """The limits ``headers`` (names lower-cased) report, by dimension (``DIMENSIONS``).

    Args:
        headers: an answer's or an error's headers.
        now: the wall clock (seconds since the epoch) for Anthropic's reset
            times; default ``time.time()``.
    """
    limits: dict[str, Limit] = {}
    if not headers:
        return limits
    for dimension, name in _OPENAI.items():
        limit = _number(headers.get(f"x-ratelimit-limit-{name}"))
        remaining = _number(headers.get(f"x-ratelimit-remaining-{name}"))
        if limit is not None and remaining is not None:
            raw = headers.get(f"x-ratelimit-reset-{name}")
            limits[dimension] = Limit(
                limit, remaining, None if raw is None else parse_duration(raw)
            )
            continue
        limit = _number(headers.get(f"anthropic-ratelimit-{name}-limit"))
        remaining = _number(headers.get(f"anthropic-ratelimit-{name}-remaining"))
        if limit is not None and remaining is not None:
            raw = headers.get(f"anthropic-ratelimit-{name}-reset")
            wall = time.time() if now is None else now
            reset = None if raw is None else _rfc3339_in(raw, wall)
            limits[dimension] = Limit(limit, remaining, reset)
    return limits


def _error_objects(body: Any) -> list[Mapping[str, Any]]:
    """The body and its ``error`` object (OpenAI's SDK hands over either)."""
    objects: list[Mapping[str, Any]] = [body] if is_object(body) else []
    if objects and is_object(inner := objects[0].get("error")):
        objects.insert(0, inner)
    return objects


def _named_quota(body: Any, wall: float) -> tuple[bool, float | None]:
    """Whether the error body names a spent quota, and when it resets if that is known."""
    for obj in _error_objects(body):
        if "insufficient_quota" in (obj.get("code"), obj.get("type")):
            return True, None  # billing: no reset the provider can name
        details = obj.get("details")
        for detail in details if is_array(details) else []:
            if not is_object(detail) or not str(detail.get("@type", "")).endswith("QuotaFailure"):
                continue
            violations = detail.get("violations")
            for violation in violations if is_array(violations) else []:
                quota_id = str(violation.get("quotaId", "")) if is_object(violation) else ""
                if "PerDay" in quota_id:
                    return True, _next_pacific(wall, monthly=False)
                if "PerMonth" in quota_id:
                    return True, _next_pacific(wall, monthly=True)
    return False, None


def _next_pacific(wall: float, *, monthly: bool) -> float:
    """Seconds until the next midnight (or first of the month) Pacific: when Google resets."""
    from zoneinfo import ZoneInfo  # only a spent Gemini quota needs it

    zone = ZoneInfo("America/Los_Angeles")
    now = datetime.fromtimestamp(wall, zone)
    if monthly:
        year, month = (now.year + 1, 1) if now.month == 12 else (now.year, now.month + 1)
        reset = datetime(year, month, 1, tzinfo=zone)
    else:
        reset = datetime(now.year, now.month, now.day, tzinfo=zone) + timedelta(days=1)
    return max(0.0, reset.timestamp() - wall)


def quota_reset(
    status: int,
    body: Any,
    headers: Mapping[str, str],
    retry_after: float | None,
    now: float | None = None,
) -> tuple[bool, float | None]:
    """Whether a refusal is a spent quota rather than a rate limit, and its reset in seconds.

    Only a 429 can be one. It is when the body says so, or when the wait
    hint or an exhausted limit's reset is ``QUOTA_RESET_SECONDS`` or more
    away.
    """
    if status != 429:
        return False, None
    wall = time.time() if now is None else now
    named, reset = _named_quota(body, wall)
    if named:
        return True, reset
    resets = [retry_after] if retry_after is not None else []
    for limit in read_rate_limits(headers, wall).values():
        if limit.remaining < 1 and limit.reset is not None:
            resets.append(limit.reset)
    far = max(resets, default=0.0)
    return (True, far) if far >= QUOTA_RESET_SECONDS else (False, None)
