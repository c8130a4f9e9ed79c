"""Argument checks shared by the budgets and the breaker, each naming the bad argument."""

from __future__ import annotations

import math
from datetime import timedelta

__all__ = ["count", "number", "seconds"]


def number(owner: str, name: str, value: object, *, minimum: float, inclusive: bool) -> float:
    """``value`` as a finite float at least (or above) ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{owner}: {name} must be a finite number, got {value!r}")
    if value < minimum or (value == minimum and not inclusive):
        bound = ">=" if inclusive else ">"
        raise ValueError(f"{owner}: {name} must be {bound} {minimum:g}, got {value!r}")
    return float(value)


def seconds(owner: str, name: str, value: object, *, positive: bool) -> float:
    """A duration given as float seconds or a ``timedelta``."""
    raw = value.total_seconds() if isinstance(value, timedelta) else value
    return number(owner, name, raw, minimum=0.0, inclusive=not positive)


def count(owner: str, name: str, value: object, *, minimum: int = 1) -> int:
    """An int at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{owner}: {name} must be an int, got {value!r}")
    if value < minimum:
        raise ValueError(f"{owner}: {name} must be >= {minimum}, got {value!r}")
    return value
