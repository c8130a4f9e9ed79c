"""What the retry loop reports as it works, and the observer that owns the call's spans.

The loop talks to one ``AttemptObserver`` and nothing else: it never opens
a span or touches telemetry itself. ``CallSpans`` is the observer that owns
the OpenTelemetry spans (a ``call_llm`` span per model, an ``llm_attempt``
child per attempt, current while the provider is awaited); the loop uses it
when its caller passes none. The invocation's trace recorder
(``trace_record.ModelCallRecorder``) extends it with the stored trace and metrics.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Protocol

from .. import telemetry
from .._aio import aclose
from ..models.llm_response import LlmResponse
from ..telemetry._api import noop_child
from ._policy import RetryDecision, RetryDetails

if TYPE_CHECKING:
    from opentelemetry.trace import Span

__all__ = ["AttemptObserver", "CallSpans", "Responses"]

Responses = AsyncIterator[LlmResponse]


class AttemptObserver(Protocol):
    """Told what the loop does as it does it, in this order per model of the call.

    ``call_started``, then per attempt (after ``attempt_paced`` when a pacer
    held it) ``attempt_started`` (which hands back
    the provider's responses as the loop should read them), each response
    ``response_received``, ``attempt_ended``, and after a failure
    ``attempt_failed``; finally ``call_ended``. An observer must not raise.
    """

    def call_started(self, provider: str, model: str) -> None:
        """The logical call to ``model`` starts (once per model of a fallback chain)."""

    def attempt_paced(self, seconds: float) -> None:
        """The next attempt waits ``seconds`` for the pacer (part of its ``delay``).

        Called only when ``RetryConfig.pacer`` is set.
        """

    def attempt_started(self, attempt: int, delay: float, responses: Responses) -> Responses:
        """Attempt ``attempt`` (1 = first) starts after waiting ``delay`` seconds.

        Returns ``responses`` (the provider's) as the loop should read them,
        e.g. with the attempt's span current while each is awaited.
        """
        ...

    def response_received(self, response: LlmResponse) -> None:
        """The attempt yields ``response`` to the flow (the complete one ends it)."""

    def attempt_ended(self, error: Exception | None) -> None:
        """The attempt is over: answered (``None``) or failed with ``error``."""

    def attempt_failed(self, details: RetryDetails, decision: RetryDecision) -> None:
        """The attempt failed; ``decision`` says whether a retry follows, and when."""

    def call_ended(self, attempts: int, error: BaseException | None) -> None:
        """The call to this model is over after ``attempts`` attempts."""


class CallSpans:
    """The spans of one logical call: the observer the loop uses when given none.

    Whether the spans are real is known once, when the call span starts:
    without an SDK (or under a parent that is not a real span) it is a no-op
    span, and then no attempt span is started, made current or ended at all
    (``traced`` is False): the common case pays for no span per attempt.

    Args:
        agent_name: the calling agent, set on the call span.
        parent: the span to open the call span under; ``None`` uses the current context.
    """

    __slots__ = (
        "_agent_name",
        "_attempt_span",
        "_parent",
        "call_span",
        "model",
        "provider",
        "traced",
    )

    def __init__(self, agent_name: str = "", parent: Span | None = None) -> None:
        self._agent_name, self._parent = agent_name, parent
        self.call_span: Span | None = None
        self.traced = False
        self._attempt_span: Span | None = None
        self.provider = self.model = ""  # the model the call is on (each of a chain's in turn)

    def call_started(self, provider: str, model: str) -> None:
        """Open the ``call_llm`` span (a non-recording span without an SDK).

        Keeps ``provider`` and ``model``; a span that records is offered to
        ``call_span_started``, the one hook a subclass adds to (no frame per
        layer on every call).
        """
        self.provider, self.model = provider, model
        noop = noop_child(self._parent)  # asked first: the span helper's frame is saved
        if noop is not None:
            self.call_span, self.traced = noop, False
            return
        span = telemetry.start_llm_call_span(
            model=model, provider=provider, agent_name=self._agent_name, parent=self._parent
        )
        self.call_span, self.traced = span, span.get_span_context().is_valid
        if self.traced:
            self.call_span_started(span)

    def call_span_started(self, span: Span) -> None:
        """The call's real span was opened; nothing to add to it here."""

    def attempt_started(self, attempt: int, delay: float, responses: Responses) -> Responses:
        """Open the attempt's child span, current while each response is awaited."""
        if not self.traced:
            return responses  # no SDK: no span to open, no layer to pay for
        assert self.call_span is not None
        span = telemetry.start_llm_attempt_span(self.call_span, attempt=attempt, delay=delay)
        self._attempt_span = span
        return _with_span_current(responses, span)

    def attempt_paced(self, seconds: float) -> None:
        """Nothing to record before the attempt's span exists."""

    def response_received(self, response: LlmResponse) -> None:
        """Nothing to record on a span per response."""

    def attempt_ended(self, error: Exception | None) -> None:
        """Mark the attempt span failed when it did, and end it."""
        span, self._attempt_span = self._attempt_span, None
        if span is None:
            return
        if error is not None:
            telemetry.record_error(span, error)
        span.end()

    def attempt_failed(self, details: RetryDetails, decision: RetryDecision) -> None:
        """Nothing more than ``attempt_ended`` recorded."""

    def call_ended(self, attempts: int, error: BaseException | None) -> None:
        """Record the attempts and the final error on the call span, and end it."""
        span = self.call_span
        if span is None or not self.traced:
            return
        if error is not None:
            telemetry.record_error(span, error, exception_event=True)
        span.set_attribute(telemetry.ATTR_LLM_ATTEMPTS, attempts)
        span.end()


async def _with_span_current(
    responses: AsyncIterator[LlmResponse], span: Span
) -> AsyncIterator[LlmResponse]:
    """``responses``, with ``span`` current while each one is awaited (never across a yield).

    Closing this generator closes ``responses`` too.
    """
    try:
        while True:
            with telemetry.activate(span):
                try:
                    response = await anext(responses)
                except StopAsyncIteration:
                    return
            yield response
    finally:
        await aclose(responses)
