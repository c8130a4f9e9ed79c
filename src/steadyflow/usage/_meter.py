"""``UsageMeter``: one invocation's usage, checked before and counted after every attempt.

Before an attempt (``admit``): the attempt's estimate (``_estimate``) must
fit what is left of every ``UsageLimits`` bound, given what the invocation
used so far; then each spend limit reserves the estimate in its store. A
refusal raises ``UsageLimitExceededError`` and the attempt is not sent (and
not counted against ``max_llm_calls``). With a ``max_cost`` limit, a model
whose price is not known raises ``UnknownPriceError`` before its first call.

After an attempt (``record``): the usage it reported (a failed attempt's
too, when the provider reported some) is priced and added to the totals;
the spend stores are charged the actual usage in place of the reservation,
in the background (``close`` and the next ``admit`` wait for it, so a
store's error is raised, never lost).

The rules, per bound (``used`` is the invocation's usage so far):

- ``max_request_input_tokens``: ``estimated input <= limit`` (this request alone);
- ``max_input_tokens``: ``used + estimated input <= limit``;
- ``max_output_tokens``: ``used + max_output_tokens <= limit`` and ``used < limit``;
- ``max_total_tokens``: ``used + estimated input + max_output_tokens <= limit``;
- ``max_cost``: ``used + price(estimate) <= limit``.

With ``max_output_tokens`` unset the output counts as 0: a limit is then
crossed by at most one response's output, never by more.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import replace
from decimal import Decimal
from typing import Any, Protocol

from ..errors import UnknownPriceError, UsageLimitExceededError
from ..types import UsageMetadata
from ._estimate import Estimate
from ._tool_calls import admit_tool_call
from ._totals import UsageTotals
from .limits import UsageLimits
from .prices import Price, Prices, find_price

__all__ = ["SpendGate", "UsageMeter"]


class SpendGate(Protocol):
    """The spend limits of one invocation, over their stores (``steadyflow.usage.spend``)."""

    @property
    def needs_cost(self) -> bool:
        """Whether a limit is in money (then every model needs a price)."""
        ...

    async def reserve(self, estimate: Estimate, model: str, call: str) -> Any:
        """Hold ``estimate`` in every limit's store, or raise ``UsageLimitExceededError``."""
        ...

    async def settle(self, hold: Any, usage: UsageMetadata | None, cost: Decimal | None) -> None:
        """Replace ``hold`` by what the attempt actually used (None: nothing reported)."""
        ...


class UsageMeter:
    """See the module docstring.

    Args:
        limits: this invocation's limits (None: none).
        prices: the user's own prices, before the maintained list.
        spend: the spend limits (None: none).
        totals: what was used before (a resumed invocation's record).

    Attributes:
        stored: what the invocation's record keeps: the totals, and the
            limits under ``"limits"``. An attribute, built again whenever an
            attempt was counted or the totals replaced (the record keeper
            reads it on every write: no call each time). Read-only: the dict
            is handed out again.
    """

    def __init__(
        self,
        limits: UsageLimits | None = None,
        prices: Prices | None = None,
        spend: SpendGate | None = None,
        totals: UsageTotals | None = None,
    ) -> None:
        self.limits = None if limits is None or limits.is_empty else limits
        self.spend = spend
        self._totals = totals  # made at the first counted attempt (most turns count none)
        self._prices = prices
        # Made when first needed: most turns price nothing and charge no store.
        self._price_cache: dict[tuple[str, str], Price | None] | None = None
        self._pending: set[asyncio.Task[None]] | None = None
        nothing = self.limits is None and totals is None
        self.stored: dict[str, Any] = {} if nothing else self._stored_now()

    @property
    def checks_attempts(self) -> bool:
        """Whether an attempt must be admitted first (a token, cost or spend limit applies).

        Tool-call limits alone say nothing about a model attempt: no estimate is made.
        """
        limits = self.limits
        return self.spend is not None or (limits is not None and limits.bounds_model_calls)

    @property
    def counts_tool_calls(self) -> bool:
        """Whether a tool-call limit applies (``admit_tool_call`` counts then)."""
        limits = self.limits
        return limits is not None and (
            limits.max_tool_calls is not None or limits.max_calls_per_tool is not None
        )

    @property
    def totals(self) -> UsageTotals:
        """What the invocation used so far (a resumed one: from before as well)."""
        if self._totals is None:
            self._totals = UsageTotals()
        return self._totals

    @totals.setter
    def totals(self, totals: UsageTotals) -> None:
        self._totals = totals
        self.stored = self._stored_now()

    def price(self, provider: str, model: str) -> Price | None:
        """The price of ``model`` (looked up once per invocation)."""
        key, cache = (provider, model), self._price_cache
        if cache is None:
            cache = self._price_cache = {}
        if key not in cache:
            cache[key] = find_price(provider, model, self._prices)
        return cache[key]

    def _stored_now(self) -> dict[str, Any]:
        data = {} if self._totals is None else self._totals.to_dict()
        if self.limits is not None:
            data["limits"] = self.limits.to_dict()
        return data

    @staticmethod
    def stored_limits(stored: dict[str, Any]) -> UsageLimits | None:
        """The usage limits a record kept (``stored``), or None."""
        limits = stored.get("limits")
        return UsageLimits.from_dict(limits) if limits else None

    async def admit(self, call: str, provider: str, model: str, estimate: Estimate) -> Any:
        """Check ``estimate`` against every limit; returns the spend hold (or None).

        ``call`` names the attempt in errors (the model, the agent, the attempt).

        Raises:
            UnknownPriceError: a cost limit applies and ``model`` has no price.
            UsageLimitExceededError: the attempt could cross a limit.
        """
        await self.flush()
        price = self.price(provider, model)
        needs_price = (self.limits is not None and self.limits.max_cost is not None) or (
            self.spend is not None and self.spend.needs_cost
        )
        if price is None and needs_price:
            raise UnknownPriceError(
                f"{call}: no price is known for model {model!r} (provider {provider!r}) "
                f"and a max_cost limit applies; pass it in RunConfig(prices={{{model!r}: "
                "ModelPrice(input=..., output=...)}) or install steadyflow[cost]"
            )
        if price is not None:
            estimate = replace(estimate, cost=price.cost(estimate.as_usage()))
        if self.limits is not None:
            _check(self.limits, self.totals, estimate, call)
        if self.spend is None:
            return None
        return await self.spend.reserve(estimate, model, call)

    def record(
        self,
        provider: str,
        model: str,
        usage: UsageMetadata | None,
        hold: Any,
        *,
        estimated: bool = False,
    ) -> Decimal | None:
        """Count one finished attempt's ``usage``; returns its cost (None: no price or no usage).

        ``estimated``: ``usage`` is steadyflow's estimate (no valid report).
        """
        cost = None
        if usage is not None:
            price = self.price(provider, model)
            cost = None if price is None else price.cost(usage)
            self.totals.add(usage, cost, estimated=estimated)
            self.stored = self._stored_now()
        if self.spend is not None and hold is not None:
            self._background(self.spend.settle(hold, usage, cost))
        return cost

    def admit_tool_call(self, tool: str) -> str | None:
        """Count a call of ``tool``, or say why a tool-call limit refuses it (``_tool_calls``).

        None (and nothing counted) when no tool-call limit applies.
        """
        if self.limits is None or not self.counts_tool_calls:
            return None
        refusal = admit_tool_call(self.limits, self.totals, tool)
        if refusal is None:
            self.stored = self._stored_now()
        return refusal

    def _background(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        if self._pending is None:
            self._pending = set()
        self._pending.add(task)

    async def flush(self) -> None:
        """Wait for the spend stores' charges; the first error of one is raised."""
        if not self._pending:
            return
        pending, self._pending = self._pending, None
        results = await asyncio.gather(*pending, return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result

    async def close(self) -> None:
        """The invocation is over: wait for the last charges (if any are pending)."""
        if self._pending:
            await self.flush()


def _check(limits: UsageLimits, used: UsageTotals, estimate: Estimate, call: str) -> None:
    """Raise ``UsageLimitExceededError`` if ``estimate`` does not fit what is left."""
    needed_in, needed_out = estimate.input_tokens, estimate.output_tokens
    bound = limits.max_request_input_tokens
    if bound is not None and needed_in > bound:  # one request's own size: nothing used counts
        raise UsageLimitExceededError(
            "max_request_input_tokens", bound, 0, needed_in, call, detail="this request's input"
        )
    bound = limits.max_input_tokens
    if bound is not None and used.input_tokens + needed_in > bound:
        raise UsageLimitExceededError(
            "max_input_tokens", bound, used.input_tokens, needed_in, call, detail="estimated"
        )
    bound = limits.max_output_tokens
    if bound is not None and (
        used.output_tokens + needed_out > bound or used.output_tokens >= bound
    ):
        raise UsageLimitExceededError(
            "max_output_tokens", bound, used.output_tokens, needed_out, call
        )
    bound = limits.max_total_tokens
    if bound is not None and used.total_tokens + estimate.total_tokens > bound:
        raise UsageLimitExceededError(
            "max_total_tokens",
            bound,
            used.total_tokens,
            estimate.total_tokens,
            call,
            detail=estimate.describe(),
        )
    cost_bound = limits.max_cost
    if cost_bound is not None and estimate.cost is not None:
        if used.cost + estimate.cost > cost_bound:
            raise UsageLimitExceededError(
                "max_cost",
                cost_bound,
                used.cost,
                estimate.cost,
                call,
                unit="usd",
                detail=f"for {estimate.total_tokens} tokens: {estimate.describe()}",
            )
