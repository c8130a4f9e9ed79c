"""``UsageMeter``: one invocation's usage, reserved before and counted after every attempt.

Before an attempt (``admit``) the meter makes a *reservation*: the
attempt's worst case must fit what is left of every ``UsageLimits`` bound,
given what the invocation used and what its attempts in flight hold (parallel
branches share the meter); then each spend limit reserves it in its store.
A refusal raises ``UsageLimitExceededError`` and the attempt is not sent
(and not counted against ``max_llm_calls``). With a cost limit, a model
whose price is not known raises ``UnknownPriceError`` before its first call.

The worst case is the estimated input (``_estimate``) plus the request's
``max_output_tokens``, or, unset, the model's output ceiling
(``_ceilings``). Limits are hard by default; where no ceiling is known
either, a hard limit that counts output refuses the attempt with
``UnboundedOutputError`` (naming the settings that fix it). A limit with
``allow_overshoot=True`` keeps the older rule instead: an attempt without
``max_output_tokens`` is admitted on its input alone, so one answer may
cross the limit by its own length. The usage limits and the spend limits
each reserve the worst case when any of theirs is hard.

While a streamed answer comes in, the output it has reached (the provider's
count when it reports one, else one token per four characters received)
is held to what was reserved: past it, the stream is cut with
``UsageLimitCutError`` (``_call``).

After an attempt (``record``): its reservation is released, and the usage
it reported (a failed attempt's too, when the provider reported some) is
priced and added to the totals; the spend stores are charged the actual
usage in place of the reservation, in the background (``close`` and the
next ``admit`` wait for it, so a store's error is raised, never lost).

The rules, per bound (``used`` is the invocation's usage so far plus what
its attempts in flight reserved):

- ``max_request_input_tokens``: ``estimated input <= limit`` (this request alone);
- ``max_input_tokens``: ``used + estimated input <= limit``;
- ``max_output_tokens``: ``used + output bound <= limit`` and ``used < limit``;
- ``max_total_tokens``: ``used + estimated input + output bound <= limit``;
- ``max_cost``: ``used + price(estimate) <= limit``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any, Protocol

from ..errors import UnboundedOutputError, UnknownPriceError, UsageLimitExceededError
from ..types import UsageMetadata
from ._ceilings import output_ceiling
from ._estimate import Estimate
from ._tool_calls import admit_tool_call
from ._totals import UsageTotals
from .limits import UsageLimits
from .prices import Price, Prices, find_price

__all__ = ["Reservation", "SpendGate", "UsageMeter"]

_OUTPUT_BOUNDS = ("max_output_tokens", "max_total_tokens", "max_cost")
"""The ``UsageLimits`` bounds an answer's length counts against."""


class SpendGate(Protocol):
    """The spend limits of one invocation, over their stores (``steadyflow.usage.spend``)."""

    @property
    def needs_cost(self) -> bool:
        """Whether a limit is in money (then every model needs a price)."""
        ...

    @property
    def hard_limit(self) -> str | None:
        """The first limit that does not allow overshoot (``"user:max_cost"``), or None."""
        ...

    async def reserve(self, estimate: Estimate, model: str, call: str) -> Any:
        """Hold ``estimate`` in every limit's store, or raise ``UsageLimitExceededError``."""
        ...

    async def settle(self, hold: Any, usage: UsageMetadata | None, cost: Decimal | None) -> None:
        """Replace ``hold`` by what the attempt actually used (None: nothing reported)."""
        ...

    def settle_now(self, hold: Any, usage: UsageMetadata | None, cost: Decimal | None) -> bool:
        """``settle`` at once if the store never waits; False when it must be awaited."""
        ...


@dataclass(slots=True)
class Reservation:
    """What one admitted attempt holds until ``UsageMeter.record`` settles it.

    Attributes:
        usage: the estimate held against the invocation's usage limits
            (None: none apply).
        spend: the spend limits' hold (None: none apply).
        allowance: the output tokens a streamed answer may reach before it
            is cut (None: no hard limit, nothing to cut).
        limit: the first hard limit the reservation was made for (names the
            cut in its error).
        input_tokens: the attempt's estimated input.
    """

    usage: Estimate | None
    spend: Any
    allowance: int | None
    limit: str
    input_tokens: int


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
        self._ceilings: dict[tuple[str, str], int | None] | None = None
        self._holds: list[Estimate] = []  # of the attempts in flight, against ``limits``
        self._hard_usage_limit = _hard_limit(self.limits)
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

    def _ceiling(self, provider: str, model: str) -> int | None:
        """The output ceiling of ``model`` (looked up once per invocation)."""
        key, cache = (provider, model), self._ceilings
        if cache is None:
            cache = self._ceilings = {}
        if key not in cache:
            cache[key] = output_ceiling(provider, model, self._prices)
        return cache[key]

    async def admit(self, call: str, provider: str, model: str, estimate: Estimate) -> Reservation:
        """Reserve the attempt's worst case under every limit; see the module docstring.

        ``call`` names the attempt in errors (the model, the agent, the attempt).

        Raises:
            UnknownPriceError: a cost limit applies and ``model`` has no price.
            UnboundedOutputError: a hard limit applies and nothing bounds the output.
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
        spend_hard = None if self.spend is None else self.spend.hard_limit
        hard_limit = self._hard_usage_limit or spend_hard
        if estimate.bound:  # the request's max_output_tokens: the same for every limit
            worst = lenient = _priced(estimate, price)
        else:
            lenient = _priced(replace(estimate, bound="output not reserved"), price)
            worst = lenient
            if hard_limit is not None:
                worst = self._worst_case(call, provider, model, estimate, hard_limit, price)
        held = None
        if self.limits is not None:
            held = worst if self._hard_usage_limit else lenient
            _check(self.limits, self._committed(), held, call)
            self._holds.append(held)  # before the spend store is awaited: branches see it
        spend_hold = None
        if self.spend is not None:
            try:
                spend_hold = await self.spend.reserve(worst if spend_hard else lenient, model, call)
            except BaseException:
                if held is not None:
                    self._holds.remove(held)
                raise
        allowance = None if hard_limit is None else worst.output_tokens
        return Reservation(held, spend_hold, allowance, hard_limit or "", estimate.input_tokens)

    def _worst_case(
        self,
        call: str,
        provider: str,
        model: str,
        estimate: Estimate,
        limit: str,
        price: Price | None,
    ) -> Estimate:
        """``estimate`` with the model's output ceiling, or ``UnboundedOutputError``."""
        ceiling = self._ceiling(provider, model)
        if ceiling is None:
            raise UnboundedOutputError(
                f"{call}: the hard limit {limit} needs the most this attempt could write, and "
                f"its request sets no max_output_tokens and no output ceiling is known for "
                f"model {model!r}; set max_output_tokens in the agent's "
                "generate_content_config, give the model's ceiling as RunConfig(prices="
                f"{{{model!r}: ModelPrice(..., max_output_tokens=N)}}), or let one answer "
                "cross the limit with allow_overshoot=True on it"
            )
        return _priced(replace(estimate, output_tokens=ceiling, bound="output ceiling"), price)

    def _committed(self) -> UsageTotals:
        """What the invocation used, plus what its attempts in flight hold."""
        if not self._holds:
            return self.totals
        committed = replace(self.totals)
        for held in self._holds:
            committed.input_tokens += held.input_tokens
            committed.output_tokens += held.output_tokens
            committed.cost += held.cost or 0
        return committed

    def record(
        self,
        provider: str,
        model: str,
        usage: UsageMetadata | None,
        hold: Reservation | None,
        *,
        estimated: bool = False,
    ) -> Decimal | None:
        """Settle ``hold`` and count one finished attempt's ``usage``; returns its cost.

        The cost is None when the model has no price or nothing was reported.
        ``estimated``: ``usage`` is steadyflow's estimate (no valid report).
        """
        cost = None
        if usage is not None:
            price = self.price(provider, model)
            cost = None if price is None else price.cost(usage)
            self.totals.add(usage, cost, estimated=estimated)
            self.stored = self._stored_now()
        if hold is not None:
            if hold.usage is not None:
                self._holds.remove(hold.usage)
            spend = self.spend
            if spend is not None and hold.spend is not None:
                if not spend.settle_now(hold.spend, usage, cost):
                    self._background(spend.settle(hold.spend, usage, cost))
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


def _priced(estimate: Estimate, price: Price | None) -> Estimate:
    """``estimate`` with its cost at ``price`` (as it is without one)."""
    if price is None:
        return estimate
    cost = price.cost(estimate.as_usage())
    return Estimate(estimate.input_tokens, estimate.output_tokens, cost, estimate.bound)


def _hard_limit(limits: UsageLimits | None) -> str | None:
    """The first bound of ``limits`` that counts output, unless overshoot is allowed."""
    if limits is None or limits.allow_overshoot:
        return None
    return next((name for name in _OUTPUT_BOUNDS if getattr(limits, name) is not None), None)


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
