"""``UsageTotals``: the tokens and money an invocation used so far, across resumes.

One per invocation (on its ``UsageMeter``), added to after every attempt
that reported usage, failed ones included, and stored in the invocation's
record (``InvocationRecord.usage``) with every write, so a resumed
invocation starts from what the crashed run had used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..types import UsageMetadata

__all__ = ["UsageTotals"]

_COUNTS = (
    "input_tokens",
    "output_tokens",
    "cached_input_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "attempts",
    "unpriced_attempts",
    "estimated_attempts",
    "tool_calls",
)


@dataclass(slots=True)
class UsageTotals:
    """Usage summed over attempts.

    Attributes:
        input_tokens / output_tokens: reported by the providers.
        cached_input_tokens / cache_write_tokens / reasoning_tokens: the
            categories inside them (0 where not reported).
        cost: US dollars of the priced attempts.
        attempts: attempts that reported usage.
        unpriced_attempts: of those, the ones whose model had no known price
            (their cost is not in ``cost``).
        estimated_attempts: attempts that reported no valid usage and were
            counted at steadyflow's estimate instead (``steadyflow.usage``).
        tool_calls / tool_calls_by_name: tool calls run, in all and per tool
            name (counted only while a tool-call limit applies).
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost: Decimal = Decimal(0)
    attempts: int = 0
    unpriced_attempts: int = 0
    estimated_attempts: int = 0
    tool_calls: int = 0
    tool_calls_by_name: dict[str, int] = field(default_factory=lambda: {})

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    def add(self, usage: UsageMetadata, cost: Decimal | None, *, estimated: bool = False) -> None:
        """Count one attempt's ``usage`` and its ``cost`` (None: no price known).

        ``estimated``: the usage is steadyflow's estimate, not the provider's report.
        """
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.cached_input_tokens += usage.cached_input_tokens or 0
        self.cache_write_tokens += usage.cache_write_tokens or 0
        self.reasoning_tokens += usage.reasoning_tokens or 0
        self.attempts += 1
        if estimated:
            self.estimated_attempts += 1
        if cost is None:
            self.unpriced_attempts += 1
        else:
            self.cost += cost

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready values (the cost as decimal text, exact); empty when nothing was used."""
        if not self.attempts and not self.tool_calls:
            return {}
        data: dict[str, Any] = {name: getattr(self, name) for name in _COUNTS}
        data["cost"] = str(self.cost)
        if self.tool_calls_by_name:
            data["tool_calls_by_name"] = dict(self.tool_calls_by_name)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> UsageTotals:
        """Read back what ``to_dict`` wrote (missing keys are 0)."""
        totals = cls()
        if not data:
            return totals
        for name in _COUNTS:
            setattr(totals, name, int(data.get(name, 0)))
        totals.cost = Decimal(str(data.get("cost", "0")))
        by_name: dict[str, Any] = data.get("tool_calls_by_name") or {}
        totals.tool_calls_by_name = {str(name): int(count) for name, count in by_name.items()}
        return totals
