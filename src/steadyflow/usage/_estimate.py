"""What a model attempt could use, known before it is sent.

The input is the history module's estimate (``history.tokens``: one token per
four characters, a fixed figure per image, framing per message) over the
whole request: its messages, the system instruction and the declared tools.
The output is the request's ``max_output_tokens``. Unset, the estimate
leaves the output at 0 and unbounded (``bound`` empty): the meter then puts
the model's output ceiling in its place for a hard limit (``_ceilings``), or
keeps 0 where the limits allow overshoot.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal

from ..history.tokens import CONTENT_OVERHEAD_TOKENS, content_tokens, text_tokens
from ..models.llm_request import LlmRequest
from ..types import UsageMetadata

__all__ = ["Estimate", "estimate_request"]


@dataclass(frozen=True, slots=True)
class Estimate:
    """An attempt's expected usage: input estimated, output at most ``output_tokens``.

    ``bound`` says what bounds the output, for messages: ``"max output"``
    (the request's), ``"output ceiling"`` (the model's), ``"output not
    reserved"`` (overshoot allowed); empty while nothing does.
    """

    input_tokens: int
    output_tokens: int
    cost: Decimal | None = None
    bound: str = "max output"

    @property
    def total_tokens(self) -> int:
        """Input plus output."""
        return self.input_tokens + self.output_tokens

    def as_usage(self) -> UsageMetadata:
        """The estimate as usage, for pricing it (all input priced as uncached)."""
        return UsageMetadata(
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            total_tokens=self.total_tokens,
        )

    def describe(self) -> str:
        """How the total is made: ``"~1000 input estimated + 200 max output"``."""
        return (
            f"~{self.input_tokens} input estimated + {self.output_tokens} {self.bound or 'output'}"
        )


def estimate_request(request: LlmRequest) -> Estimate:
    """The estimate of one attempt of ``request`` (see the module docstring)."""
    tokens = sum(content_tokens(content) for content in request.contents)
    config = request.config
    if config.system_instruction:
        tokens += CONTENT_OVERHEAD_TOKENS + text_tokens(config.system_instruction)
    for tool in config.tools:
        schema = json.dumps(tool.parameters, separators=(",", ":"), default=str)
        tokens += text_tokens(tool.name) + text_tokens(tool.description) + text_tokens(schema)
    if config.max_output_tokens is None:
        return Estimate(tokens, 0, bound="")
    return Estimate(tokens, config.max_output_tokens)
