"""Errors of the per-invocation limits (call budget, usage, spend) and their chain check."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from ._base import SteadyflowError, error_chain


class InvocationLimitError(SteadyflowError):
    """A limit that ends the invocation: calls, tokens or money.

    Never retried, never passed to on-model-error callbacks, never a reason
    for a ``FallbackLlm`` to try its next model, whichever attempt hits it.
    """


class LlmCallsLimitExceededError(InvocationLimitError):
    """The invocation reached ``RunConfig.max_llm_calls``.

    Never retried and never passed to on-model-error callbacks: it is the last
    defence against a model that keeps calling tools forever.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"max_llm_calls ({limit}) exceeded for this invocation")


class UsageLimitExceededError(InvocationLimitError):
    """The next model attempt would cross a token or cost limit; it was not sent.

    Raised before the attempt by ``RunConfig.usage_limits`` (this invocation)
    or ``RunConfig.spend_limits`` (across invocations). The same rules as
    ``LlmCallsLimitExceededError`` apply.

    Attributes:
        limit: the limit's name (``max_total_tokens``, ``max_cost``, ...),
            prefixed with the spend limit's scope for a spend limit
            (``user:max_cost``).
        maximum: the limit's value, a number in ``unit``.
        used: what was used already (in the window, for a spend limit), in ``unit``;
            0 for ``max_request_input_tokens``, a bound on one request alone.
        needed: what the refused attempt could use (its estimate), in ``unit``.
        unit: ``"tokens"`` (ints) or ``"usd"`` (US dollars as ``Decimal``).
        window: a spend limit's window in seconds (None for ``UsageLimits``).
        detail: how ``needed`` was reckoned, for people
            (``"~1000 input estimated + 200 max output"``).
    """

    def __init__(
        self,
        limit: str,
        maximum: int | Decimal,
        used: int | Decimal,
        needed: int | Decimal,
        call: str,
        *,
        unit: Literal["tokens", "usd"] = "tokens",
        window: float | None = None,
        detail: str = "",
    ) -> None:
        self.limit, self.maximum, self.used, self.needed = limit, maximum, used, needed
        self.unit, self.window, self.detail = unit, window, detail
        within = "" if window is None else f" in {window:g} s"
        how = f" ({detail})" if detail else ""
        super().__init__(
            f"{limit} ({_amount(maximum, unit)}) would be exceeded: "
            f"{_amount(used, unit)} used{within}, and {call} could use up to "
            f"{_amount(needed, unit)}{how} more; the call was not sent"
        )


def _amount(value: int | Decimal, unit: str) -> str:
    """``"$0.01"`` or ``"500 tokens"``: a limit's number as people read it."""
    return f"${value}" if unit == "usd" else f"{value} {unit}"


class UsageLimitCutError(UsageLimitExceededError):
    """A streamed answer wrote past what its reservation allows; the stream was cut.

    The attempt was sent (its worst case fit the limits) but the provider
    wrote more than the reserved output (``max_output_tokens`` or the
    model's ceiling). The partial answer is not stored; the attempt is
    charged what was received (``usage``).

    Attributes:
        limit: the first hard limit the reservation was made against
            (``max_total_tokens``, ``user:max_cost``, ...).
        maximum: the output tokens the reservation allowed.
        used: the output tokens received when the stream was cut.
        needed: the same as ``used`` (what the answer had reached).
        unit: ``"tokens"``.
        usage: what the attempt is charged (``UsageMetadata``).
    """

    def __init__(self, limit: str, allowed: int, received: int, usage: Any, call: str) -> None:
        self.limit, self.maximum, self.used, self.needed = limit, allowed, received, received
        self.unit, self.window, self.detail = "tokens", None, ""
        self.usage = usage
        InvocationLimitError.__init__(
            self,
            f"{limit}: {call} wrote {received} output tokens, past the {allowed} its "
            "reservation allows; the stream was cut and the answer not stored",
        )


class SpendStoreError(SteadyflowError):
    """A spend store (Redis) could not reserve or charge; the attempt was not sent.

    Spend limits fail closed: without the store there is no way to know what
    was spent. The driver's error is the ``__cause__``.
    """


def call_limit_in_chain(error: BaseException) -> bool:
    """Whether an ``InvocationLimitError`` (calls, tokens, money) is in ``error``'s chain."""
    return any(isinstance(link, InvocationLimitError) for link in error_chain(error))
