"""The most a model writes in one answer: the worst case of an attempt that sets no limit.

A hard usage or spend limit reserves each attempt's worst case before it is
sent: its estimated input plus the most it can write. A request's own
``max_output_tokens`` bounds that; without it, the model's output ceiling
does. ``genai-prices`` lists prices and context windows but no output
ceilings, so the ceiling comes from, in order:

1. the user's ``ModelPrice(max_output_tokens=...)`` for the model (private
   deployments, fine-tunes, a provider's beta that raises the ceiling);
2. ``OUTPUT_CEILINGS`` below: the providers' published maximum output of
   their model families, matched on the start of the model's name (the
   longest matching prefix wins; a ``models/`` or ``vendor/`` path before
   the name is ignored). An entry is never below the real ceiling of any
   model it matches: a loose bound reserves too much, a tight one would let
   an answer pass its reservation.

A model neither knows has no known worst case: under a hard limit its
attempts are refused with ``UnboundedOutputError`` (``_meter``).
"""

from __future__ import annotations

from collections.abc import Mapping

from .prices import Prices, own_price

__all__ = ["OUTPUT_CEILINGS", "output_ceiling"]

OUTPUT_CEILINGS: Mapping[str, int] = {
    # OpenAI (o1-mini and o1-preview write less than o1's 100,000).
    "gpt-3.5-turbo": 4_096,
    "gpt-4-turbo": 4_096,
    "gpt-4o": 16_384,
    "chatgpt-4o": 16_384,
    "gpt-4.1": 32_768,
    "gpt-4.5": 16_384,
    "gpt-5": 128_000,
    "o1": 100_000,
    "o3": 100_000,
    "o4-mini": 100_000,
    # Anthropic (claude-3-7-sonnet: 128,000 with the output-128k beta).
    "claude-3-haiku": 4_096,
    "claude-3-sonnet": 4_096,
    "claude-3-opus": 4_096,
    "claude-3-5-haiku": 8_192,
    "claude-3-5-sonnet": 8_192,
    "claude-3-7-sonnet": 128_000,
    "claude-sonnet-4": 64_000,
    "claude-opus-4": 32_000,
    "claude-opus-4-5": 64_000,
    "claude-haiku-4-5": 64_000,
    # Google.
    "gemini-1.5": 8_192,
    "gemini-2.0": 8_192,
    "gemini-2.5": 65_536,
    "gemini-3": 65_536,
}
"""Published maximum output tokens by model-name prefix (see the module docstring)."""


def output_ceiling(provider: str, model: str, prices: Prices | None) -> int | None:
    """The most ``model`` writes in one answer, or None when neither source knows it."""
    own = own_price(provider, model, prices)
    if own is not None and own.max_output_tokens is not None:
        return own.max_output_tokens
    name = model.rsplit("/", 1)[-1].lower()
    matches = [prefix for prefix in OUTPUT_CEILINGS if name.startswith(prefix)]
    return OUTPUT_CEILINGS[max(matches, key=len)] if matches else None
