"""What a model call costs: your own prices first, then the maintained list.

Prices are not a table copied into steadyflow: they come from the
``genai-prices`` package (``pip install 'steadyflow[cost]'``), which is
maintained per provider and model, with input, cached input, cache write,
output and reasoning prices, and dated (a price change applies to calls
made after it). ``ModelPrice`` is for what it does not know: private
deployments, negotiated rates, fine-tunes. Pass them as
``RunConfig(prices={"my-model": ModelPrice(...)})``; a key is
``"provider:model"`` or just ``"model"``, the first matching wins.

Costs are computed from the exact usage categories (``UsageMetadata``:
each category inside its parent), so cached input is priced at the cached
rate and the rest of the input at the input rate, reasoning at the
reasoning rate (the output rate where the model has none), and so on.
Money is US dollars as ``Decimal``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Protocol

from ..errors import ConfigurationError
from ..types import UsageMetadata
from .limits import to_money

__all__ = ["ModelPrice", "Price", "Prices", "find_price", "listed_price", "own_price", "usd"]

logger = logging.getLogger("steadyflow.usage")

_MILLION = Decimal(1_000_000)

# steadyflow's provider names where genai-prices calls them otherwise.
_PROVIDER_IDS = {"gemini": "google", "openai-responses": "openai"}


class Price(Protocol):
    """Anything that prices one attempt's usage (a ``ModelPrice``, a listed price)."""

    def cost(self, usage: UsageMetadata) -> Decimal:
        """US dollars for ``usage``."""
        ...


@dataclass(frozen=True, kw_only=True)
class ModelPrice:
    """A model's prices in US dollars per million tokens.

    Attributes:
        input: input tokens (the uncached, unwritten part of the input).
        output: output tokens.
        cached_input: input read from the prompt cache; default ``input``.
        cache_write: input written to the prompt cache; default ``input``.
        reasoning: thinking tokens (inside the output); default ``output``.
        max_output_tokens: the most the model writes in one answer (its
            output ceiling), reasoning included. Hard usage and spend limits
            reserve it for an attempt whose request sets no
            ``max_output_tokens`` (``steadyflow.usage``); None: the ceiling
            table's, if it knows the model.
    """

    input: Decimal
    output: Decimal
    cached_input: Decimal | None = None
    cache_write: Decimal | None = None
    reasoning: Decimal | None = None
    max_output_tokens: int | None = None

    def __post_init__(self) -> None:
        for name in ("input", "output", "cached_input", "cache_write", "reasoning"):
            value = getattr(self, name)
            if value is not None or name in ("input", "output"):
                object.__setattr__(self, name, to_money("ModelPrice", name, value))
        ceiling = self.max_output_tokens
        if ceiling is not None and (
            isinstance(ceiling, bool) or not isinstance(ceiling, int) or ceiling <= 0
        ):
            raise ConfigurationError(
                f"ModelPrice: max_output_tokens must be an int > 0 or None, got {ceiling!r}"
            )

    def cost(self, usage: UsageMetadata) -> Decimal:
        """US dollars for ``usage``: each category at its own rate."""
        cached = usage.cached_input_tokens or 0
        written = usage.cache_write_tokens or 0
        reasoning = usage.reasoning_tokens or 0
        plain_input = max(0, usage.input_tokens - cached - written)
        plain_output = max(0, usage.output_tokens - reasoning)
        total = (
            plain_input * self.input
            + cached * _or(self.cached_input, self.input)
            + written * _or(self.cache_write, self.input)
            + plain_output * self.output
            + reasoning * _or(self.reasoning, self.output)
        )
        return total / _MILLION


def _or(value: Decimal | None, default: Decimal) -> Decimal:
    return default if value is None else value


Prices = Mapping[str, ModelPrice]
"""User prices by ``"provider:model"`` or ``"model"``."""


class _ListedPrice:
    """A model's price from ``genai-prices`` (the price in force at the call's time)."""

    __slots__ = ("_model", "_provider_id")

    def __init__(self, provider_id: str | None, model: str) -> None:
        self._provider_id, self._model = provider_id, model

    def cost(self, usage: UsageMetadata) -> Decimal:
        import genai_prices

        counts: dict[str, Any] = {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_read_tokens": usage.cached_input_tokens,
            "cache_write_tokens": usage.cache_write_tokens,
            "output_reasoning_tokens": usage.reasoning_tokens,
            "input_tool_tokens": usage.tool_use_prompt_tokens,
        }
        calculation = genai_prices.calc_price(
            genai_prices.Usage(**counts),
            self._model,
            provider_id=self._provider_id,
            genai_request_timestamp=datetime.now(UTC),
        )
        return calculation.total_price


_listed: dict[tuple[str, str], _ListedPrice | None] = {}


def listed_price(provider: str, model: str) -> Price | None:
    """The maintained price of ``model`` at ``provider``, or None (unknown, or not installed).

    A provider ``genai-prices`` does not know (a custom adapter, a test
    double) is looked up by the model's name alone.
    """
    key = (provider, model)
    if key in _listed:
        return _listed[key]
    price = _look_up(provider, model)
    _listed[key] = price
    return price


def _look_up(provider: str, model: str) -> _ListedPrice | None:
    try:
        import genai_prices
    except ImportError:
        return None
    from genai_prices.data_snapshot import get_snapshot

    provider_id: str | None = _PROVIDER_IDS.get(provider, provider)
    try:
        get_snapshot().find_provider(None, provider_id, None)
    except LookupError:
        provider_id = None  # not a provider it lists: match the model's name alone
    probe = genai_prices.Usage(input_tokens=1, output_tokens=1)
    try:
        genai_prices.calc_price(probe, model, provider_id=provider_id)
    except LookupError:
        return None
    return _ListedPrice(provider_id, model)


def own_price(provider: str, model: str, prices: Prices | None) -> ModelPrice | None:
    """The user's price of ``model``: keyed ``"provider:model"``, else ``"model"``."""
    if not prices:
        return None
    return prices.get(f"{provider}:{model}") or prices.get(model)


def find_price(provider: str, model: str, prices: Prices | None) -> Price | None:
    """The price of ``model`` called through ``provider``: ``prices`` first, then the list."""
    own = own_price(provider, model, prices)
    return own if own is not None else listed_price(provider, model)


def usd(amount: Decimal) -> str:
    """``$0.0123`` (four decimals), ``$0.000042`` below a cent: what a person reads."""
    places = Decimal("0.0001") if abs(amount) >= Decimal("0.01") or not amount else Decimal("1e-6")
    return f"${amount.quantize(places)}"
