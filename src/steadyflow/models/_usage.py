"""Token counts a provider reported, checked before anything counts them.

Usage limits and spend limits trust what the provider says it used, so a
broken or hostile answer must not be able to defeat them: a negative count
would give budget back, a count of ``"lots"`` would end the turn with a raw
validation error, and ``10**30`` would overflow a database column. Every
adapter reads its provider's counts through ``read_counts`` and every
``UsageMetadata`` a model hands over (custom adapters included) is checked
by ``checked`` before the meter counts it.

The rule is one for every kind of bad count: a count that is not a whole
number, is below zero or is above ``MAX_USAGE_TOKENS`` makes the whole
report invalid. It is logged (WARNING, with the provider's name and the
field) and treated as missing, so the attempt is charged an estimate, as an
answer without usage is (``steadyflow.usage``). Clamping was the other
choice; it was not taken because one absurd count, clamped to the bound,
would still fill a daily budget with tokens nobody used.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping

from ..types import UsageMetadata

__all__ = ["MAX_USAGE_TOKENS", "checked", "read_counts"]

logger = logging.getLogger("steadyflow.models")

MAX_USAGE_TOKENS = 10**9
"""The largest count one attempt may report: a thousand times the longest context offered today."""


def _count(value: object) -> int | None:
    """``value`` as a valid count (None: absent); raises ``ValueError`` when it is not one."""
    if value is None:
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)  # a JSON number written as 12.0
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("not a whole number")
    if value < 0:
        raise ValueError("below zero")
    if value > MAX_USAGE_TOKENS:
        raise ValueError(f"above {MAX_USAGE_TOKENS}")
    return value


def read_counts(provider: str, raw: Mapping[str, object]) -> dict[str, int | None] | None:
    """The provider's counts (by its own field names) as ints, or None when one is invalid.

    An absent count is None; an invalid one is logged (see the module
    docstring) and makes the whole report None.
    """
    counts: dict[str, int | None] = {}
    for name, value in raw.items():
        try:
            counts[name] = _count(value)
        except ValueError as error:
            _log_invalid(provider, name, value, str(error))
            return None
    return counts


def checked(provider: str, usage: UsageMetadata | None) -> UsageMetadata | None:
    """``usage`` if every count in it is valid; else None (logged), as if it were missing."""
    if usage is None:
        return None
    raw = {name: getattr(usage, name) for name in _FIELDS}
    return usage if read_counts(provider, raw) is not None else None


_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cached_input_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "tool_use_prompt_tokens",
)


def _log_invalid(provider: str, name: str, value: object, why: str) -> None:
    logger.warning(
        "provider %s reported invalid usage (%s=%.40r: %s); "
        "the attempt is charged an estimate instead",
        provider,
        name,
        value,
        why,
    )
