"""``MeteredCall``: one logical model call seen by the usage meter.

The flow's seam into the retry loop: the call's attempt observer (the spans
of ``CallSpans``, plus the metering; the trace recorder extends it) and the
loop's ``before_attempt``. One object, not a wrapper around the recorder:
each hook is one call, not one per layer. Before each
attempt it asks the meter to reserve the attempt's worst case, then counts
the attempt against ``max_llm_calls`` (a refused attempt is not counted: it
was never sent). Under a hard limit a streamed answer is read through
``_within_reservation``, which cuts it with ``UsageLimitCutError`` once its
output passes what was reserved (the chunk that passed it never reaches the
flow, and a cut answer is never stored). As the attempt runs it keeps the
last usage a response carried (checked: an invalid report counts as none,
``models._usage``) and what the model wrote; when the attempt ends
(answered, failed, or cut) that usage, or the usage a failed call's error
reported, is priced, counted, charged to the spend stores in place of the
reservation and written to the attempt's trace. A reservation whose attempt
never started (a cancelled wait) is released when the call ends.

An attempt that received an answer but no valid usage is charged an
estimate instead of nothing: the request's input estimate (``_estimate``)
plus the output it received, counted as the history module counts a
message (``history.tokens``). The trace marks that attempt
(``usage_estimated``) and the record counts it (``estimated_attempts``). An
attempt that failed before any answer and reported no usage is charged
nothing: providers do not bill a refused request.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from decimal import Decimal
from typing import TYPE_CHECKING

from .. import telemetry
from .._aio import aclose
from ..errors import UsageLimitCutError, error_chain
from ..history.tokens import chars_tokens, content_tokens
from ..models._usage import checked
from ..models.llm_request import LlmRequest
from ..models.llm_response import LlmResponse
from ..retry._observer import CallSpans, Responses
from ..telemetry import _metrics
from ..types import Content, UsageMetadata
from ._estimate import Estimate, estimate_request
from ._meter import Reservation, UsageMeter

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from ..trace_record import StepTrace

__all__ = ["MeteredCall", "usage_of_error"]


def usage_of_error(error: BaseException | None) -> UsageMetadata | None:
    """The usage a failed call reported (``ModelError.usage`` anywhere in its chain)."""
    if error is None:
        return None
    for link in error_chain(error):
        usage = getattr(link, "usage", None)
        if isinstance(usage, UsageMetadata):
            return usage
    return None


class MeteredCall(CallSpans):
    """See the module docstring; ``CallSpans`` with the usage meter's work per attempt.

    ``before_attempt`` (the retry loop's hook) admits the next attempt (it
    may raise a limit error), then counts it. It is chosen once per call:
    without a limit there is nothing to admit and no estimate is made (it
    reads the whole history, which made a turn's cost grow with it), so it
    is ``count_attempt`` itself, with no coroutine to await and no frame of
    ours around it.

    Args:
        meter: the invocation's meter.
        request: the request, the same on every attempt.
        step: the trace step of the call (None outside a step).
        count_attempt: counts one attempt against ``max_llm_calls``.
        agent_name: the calling agent, for error messages and spans.
        parent: the span to open the call span under; ``None`` uses the current context.
        stream: whether the call streams (only a stream is cut at its reservation).
    """

    __slots__ = (
        "_call_cost",
        "_count_attempt",
        "_estimate",
        "_hold",
        "_meter",
        "_metered_attempt",
        "_received",
        "_request",
        "_step",
        "_stream",
        "_usage",
        "before_attempt",
    )

    def __init__(
        self,
        meter: UsageMeter,
        request: LlmRequest,
        step: StepTrace | None,
        count_attempt: Callable[[], None],
        agent_name: str,
        parent: Span | None = None,
        *,
        stream: bool = False,
    ) -> None:
        CallSpans.__init__(self, agent_name, parent)
        self._meter, self._request, self._step = meter, request, step
        self._stream = stream
        self._count_attempt = count_attempt
        self.before_attempt: Callable[[], Awaitable[None] | None] = (
            self._admit_and_count if meter.checks_attempts else count_attempt
        )
        self._metered_attempt = 0  # of the model the call is on (``call_ended`` resets it)
        self._estimate: Estimate | None = None
        self._usage: UsageMetadata | None = None
        # What the model wrote in this attempt (None: no answer yet); a complete
        # response holds all of it, so it replaces the partial pieces before it.
        self._received: list[Content] | None = None
        self._hold: Reservation | None = None
        self._call_cost: Decimal | None = None

    def _describe(self, counted: int = 0) -> str:
        """The attempt in messages: the next one, or ``counted=-1`` the one under way."""
        step = "" if self._step is None or not self._step.number else f", step {self._step.number}"
        return (
            f"attempt {self._metered_attempt + 1 + counted} of the call to "
            f"{self.provider}:{self.model} (agent {self._agent_name!r}{step})"
        )

    async def _admit_and_count(self) -> None:
        if self._estimate is None:
            self._estimate = estimate_request(self._request)
        self._hold = await self._meter.admit(
            self._describe(), self.provider, self.model, self._estimate
        )
        self._metered_attempt += 1  # counted here, where it is needed: no attempt hook
        self._count_attempt()

    def attempt_started(self, attempt: int, delay: float, responses: Responses) -> Responses:
        """The attempt's responses, held to its reservation, inside its span."""
        return CallSpans.attempt_started(self, attempt, delay, self.within_reservation(responses))

    def within_reservation(self, responses: Responses) -> Responses:
        """``responses``, cut once a streamed answer passes the output reserved for it.

        ``responses`` itself when the call does not stream or no hard limit
        reserved anything (no layer to pay for).
        """
        hold = self._hold
        if not self._stream or hold is None or hold.allowance is None:
            return responses
        return _within_reservation(responses, hold, self._describe(-1))

    def response_received(self, response: LlmResponse) -> None:
        """Keep the latest valid usage the attempt reported, and what the model wrote."""
        if response.usage_metadata is not None:
            self._usage = checked(self.provider, response.usage_metadata)
        content = response.content
        if self._received is None or not response.partial:
            self._received = []
        if content is not None:
            self._received.append(content)

    def attempt_ended(self, error: Exception | None) -> None:
        """Count, price and charge what the attempt used; write it to its trace."""
        usage, estimated = self._usage, False
        if error is not None:  # what a failure reported came after any response's
            usage = checked(self.provider, usage_of_error(error)) or usage
        if usage is None and self._received is not None:
            usage, estimated = self._estimated_usage(self._received), True
        hold = self._hold
        if usage is not None or hold is not None:  # else there is nothing to count
            self._hold = self._usage = self._received = None  # the next attempt starts afresh
            cost = self._meter.record(self.provider, self.model, usage, hold, estimated=estimated)
            if usage is not None:
                self._trace(usage, cost, failed=error is not None, estimated=estimated)
        if self._attempt_span is not None:  # else ``CallSpans`` has nothing to end
            CallSpans.attempt_ended(self, error)

    def _estimated_usage(self, received: list[Content]) -> UsageMetadata:
        """What an attempt that reported no usage is charged (see the module docstring)."""
        if self._estimate is None:
            self._estimate = estimate_request(self._request)
        inputs = self._estimate.input_tokens
        outputs = sum(content_tokens(content) for content in received)
        return UsageMetadata(
            input_tokens=inputs, output_tokens=outputs, total_tokens=inputs + outputs
        )

    def _trace(
        self, usage: UsageMetadata, cost: Decimal | None, *, failed: bool, estimated: bool
    ) -> None:
        step = self._step
        if step is not None and step.attempts:
            attempt = step.attempts[-1]
            attempt.input_tokens, attempt.output_tokens = usage.input_tokens, usage.output_tokens
            attempt.cost = cost
            attempt.usage_estimated = True if estimated else None
            # A complete response's reported usage is already the step's; others add.
            if failed or estimated:
                step.input_tokens = (step.input_tokens or 0) + usage.input_tokens
                step.output_tokens = (step.output_tokens or 0) + usage.output_tokens
        if cost is not None:
            self._call_cost = (self._call_cost or Decimal(0)) + cost
            if _metrics.metrics_enabled():
                _metrics.record_cost(self.provider, self.model, cost)

    def call_ended(self, attempts: int, error: BaseException | None) -> None:
        """Put the call's cost on its span, then end the span.

        The next model of a fallback chain counts its attempts from 1 again.
        """
        self._metered_attempt = 0
        if self._hold is not None:  # admitted, never started (a cancelled wait): release it
            hold, self._hold = self._hold, None
            self._meter.record(self.provider, self.model, None, hold)
        if self._call_cost is not None:
            span = self.call_span
            if span is not None and span.is_recording():
                span.set_attribute(telemetry.ATTR_USAGE_COST, float(self._call_cost))
            self._call_cost = None
        if self.traced:  # else ``CallSpans`` has nothing to end
            CallSpans.call_ended(self, attempts, error)


def _output_chars(content: Content | None) -> int:
    """Characters of what a streamed chunk wrote: its text (thoughts too) and calls."""
    if content is None:
        return 0
    chars = 0
    for part in content.parts:
        if part.text:
            chars += len(part.text)
        if part.function_call is not None:
            call = part.function_call
            chars += len(call.name) + len(json.dumps(call.args, separators=(",", ":"), default=str))
    return chars


async def _within_reservation(
    responses: AsyncIterator[LlmResponse], hold: Reservation, call: str
) -> AsyncIterator[LlmResponse]:
    """``responses`` until a partial one takes the answer past ``hold.allowance``.

    The output reached is the provider's running count where a chunk
    reports one, else the history module's estimate of the characters
    received (summed over the chunks, then rounded up once), whichever is
    larger. The chunk that passes the allowance is not yielded; the error
    carries the usage the attempt is charged: what was received.
    """
    allowance = hold.allowance
    assert allowance is not None
    chars = 0
    try:
        async for response in responses:
            if response.partial:
                chars += _output_chars(response.content)
                reported = response.usage_metadata
                received = chars_tokens(chars)
                if reported is not None:
                    received = max(received, reported.output_tokens)
                if received > allowance:
                    input_tokens = hold.input_tokens if reported is None else reported.input_tokens
                    usage = UsageMetadata(
                        input_tokens=input_tokens,
                        output_tokens=received,
                        total_tokens=input_tokens + received,
                    )
                    raise UsageLimitCutError(hold.limit, allowance, received, usage, call)
            yield response
    finally:
        await aclose(responses)
