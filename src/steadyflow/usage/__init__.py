"""Token and cost limits, prices, and spend limits across invocations.

- ``UsageLimits`` (``RunConfig.usage_limits``): tokens and money one
  invocation may use, resumes included.
- ``SpendLimit`` (``RunConfig.spend_limits``): what a session, a user or the
  app may spend over a sliding window, kept in a spend store.
- ``ModelPrice`` (``RunConfig.prices``): your own prices; the maintained
  list comes from ``genai-prices`` (``pip install 'steadyflow[cost]'``).

Every limit is checked before each model attempt against the attempt's
estimate (estimated input plus the request's ``max_output_tokens``) and
refuses it with ``UsageLimitExceededError`` before anything is sent; every
attempt's reported usage counts afterwards, failed attempts' too. A report
that is missing or invalid (negative, not a number, absurd) is replaced by
an estimate, never by zero (``_call``). Tool-call limits are checked before
each tool call (``_tool_calls``). The exact rule is in ``_meter``'s
docstring and docs/cost.md. Spend stores:
``InMemorySpendStore``, ``SqlSessionService.spend_store()`` (the session
database) and ``steadyflow.usage.redis.RedisSpendStore`` (fleets).
"""

from __future__ import annotations

from ._ceilings import output_ceiling
from ._memory_spend import InMemorySpendStore
from ._totals import UsageTotals
from .limits import SpendLimit, SpendScope, UsageLimits
from .prices import ModelPrice, Price, find_price
from .spend import SpendEntry, SpendStore

__all__ = [
    "InMemorySpendStore",
    "ModelPrice",
    "Price",
    "SpendEntry",
    "SpendLimit",
    "SpendScope",
    "SpendStore",
    "UsageLimits",
    "UsageTotals",
    "find_price",
    "output_ceiling",
]
