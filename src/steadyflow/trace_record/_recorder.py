"""The recorder that fills an invocation's trace, spans and metrics as it runs.

One ``InvocationRecorder`` lives on the invocation's context. The flow opens
a step per logical model call, hands the retry loop a ``ModelCallRecorder``
(its attempt observer) and wraps each tool call in a ``ToolCallScope``. The
work per model call is a few small object updates and clock reads: nothing
is serialized until ``finish`` builds the stored form once, at the end.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING

from .. import telemetry
from ..errors import LlmCallsLimitExceededError, error_chain
from ..retry._observer import CallSpans, Responses
from ..telemetry import _metrics
from ..telemetry._api import NO_SPAN, noop_child
from ..usage._call import MeteredCall
from ._schema import AttemptTrace, InvocationTrace, StepTrace, ToolTrace
from ._tool_scope import ToolCallScope

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from ..models.llm_request import LlmRequest
    from ..models.llm_response import LlmResponse
    from ..retry._policy import RetryDecision, RetryDetails
    from ..usage._meter import UsageMeter

__all__ = ["InvocationRecorder", "ModelCallRecorder", "ToolCallScope"]

_MESSAGE_LIMIT = 500
_US = 1e6  # times are stored to the microsecond


def _micro(seconds: float) -> float:
    """``seconds`` to the nearest microsecond (a half rounds up).

    ``(seconds * 1e6 + 0.5) // 1.0 / 1e6``: about 450 instructions, where
    ``round(seconds, 6)`` takes about 3,000 (it rounds through the decimal
    digits), and a turn rounds every time it records. The result is the float
    nearest a whole number of microseconds, as ``round``'s is; the two differ
    only for a time within a float's error of an exact half microsecond.
    """
    return (seconds * _US + 0.5) // 1.0 / _US


class InvocationRecorder:
    """Builds one ``InvocationTrace``; see the module docstring.

    Args:
        clock: monotonic seconds (injectable for tests).
        wall_clock: epoch seconds, read once for ``started_at``.
        origin: the clock reading times count from (default: now). A
            recorder for part of an invocation run elsewhere (a Temporal
            activity) passes ``clock=time.time`` and the invocation's start.
    """

    __slots__ = ("_clock", "_origin", "metrics", "trace")

    def __init__(
        self,
        clock: Callable[[], float] = time.perf_counter,
        wall_clock: Callable[[], float] = time.time,
        origin: float | None = None,
    ) -> None:
        self._clock = clock
        self._origin = clock() if origin is None else origin
        self.trace = InvocationTrace(started_at=wall_clock())
        self.metrics = _metrics.metrics_enabled()  # asked once per invocation

    def carry_on(self, earlier: InvocationTrace, wall_now: float) -> None:
        """Continue ``earlier`` (a paused or resumed invocation's stored trace).

        Its steps come first and keep their numbers; new steps' times count
        from its start, so the pause shows as the gap it was.
        """
        self.trace.steps = list(earlier.steps)
        self.trace.started_at = earlier.started_at
        self._origin = self._clock() - max(0.0, wall_now - earlier.started_at)

    def now(self) -> float:
        """Seconds since the invocation started, to the microsecond (as the trace keeps them).

        Rounded as read, so ``finish`` has no time to round again.
        """
        return _micro(self._clock() - self._origin)

    def start_step(self, agent_name: str, path: list[str] | None = None) -> StepTrace:
        """Open the next step, run by ``agent_name`` (at ``path`` in the agent tree)."""
        step = StepTrace(len(self.trace.steps) + 1, agent_name, self.now(), path=path)
        self.trace.steps.append(step)
        return step

    def warn(self, message: str) -> None:
        """Note ``message`` on the current step (nowhere before the first step)."""
        if self.trace.steps:
            step = self.trace.steps[-1]
            step.warnings = [*(step.warnings or []), message]

    def end_step(self, step: StepTrace) -> None:
        """Close ``step``."""
        step.end = self.now()

    def end_agent_span(
        self, span: Span, agent_name: str, first_step: int, budget_used: int, budget_limit: int
    ) -> None:
        """End an ``invoke_agent`` span with its run's steps (from index ``first_step``)."""
        if span is NO_SPAN:
            return  # no SDK, no API: nothing to end (and no frame to ask)
        if not span.is_recording():
            span.end()
            return
        steps = [s for s in self.trace.steps[first_step:] if s.agent == agent_name]
        telemetry.end_agent_span(
            span,
            steps=len(steps),
            short_circuits=sum(1 for s in steps if s.short_circuit),
            budget_used=budget_used,
            budget_limit=budget_limit,
        )

    def tool_call(
        self,
        step: StepTrace | None,
        name: str,
        call_id: str | None,
        parent: Span | None,
        server: str | None = None,
    ) -> ToolCallScope:
        """A scope around one tool call: its span (current inside) and its record."""
        record = ToolTrace(name, call_id, self.now(), server=server)
        if step is not None:
            step.tools.append(record)
        noop = noop_child(parent)  # asked first: the span helper's frame is saved
        if noop is not None:
            return ToolCallScope(self, record, noop, traced=False)
        span = telemetry.start_tool_span(name, call_id, parent=parent)
        return ToolCallScope(self, record, span, traced=span.get_span_context().is_valid)

    def finish(
        self,
        *,
        invocation_id: str,
        agent_name: str,
        error: BaseException | None,
        budget_used: int,
        budget_limit: int,
    ) -> InvocationTrace:
        """Complete the trace once the invocation is over (``error``: what ended it)."""
        trace, now = self.trace, self.now()
        trace.invocation_id = invocation_id
        trace.budget_used, trace.budget_limit = budget_used, budget_limit
        if error is None:
            trace.status = "ok"
        elif isinstance(error, GeneratorExit | asyncio.CancelledError):
            trace.status = "cancelled"
        else:
            trace.status = "error"
            trace.error_type = type(error).__qualname__
            trace.error_message = str(error)[:_MESSAGE_LIMIT]
            if self.metrics and _calls_exhausted(error):
                _metrics.record_budget_exhausted(agent_name)
        for step in trace.steps:  # totals, and the records the end cut short
            if step.end is None:
                step.end = now
            trace.input_tokens += step.input_tokens or 0
            trace.output_tokens += step.output_tokens or 0
            for tool in step.tools:
                if tool.end is None:
                    tool.end, tool.status = now, "cancelled"
            cost: Decimal | None = None
            attempt = None
            for attempt in step.attempts:
                if attempt.end is None:
                    attempt.end, attempt.status = now, "cancelled"
                if attempt.cost is not None:
                    cost = (Decimal(0) if cost is None else cost) + attempt.cost
            if cost is not None:
                step.cost = cost
                trace.cost = cost + (trace.cost or 0)
            if attempt is not None and attempt.outcome == "retry":  # it never started
                attempt.outcome = f"stopped by {trace.error_type or trace.status}"
        trace.duration = now
        return trace


def _calls_exhausted(error: BaseException) -> bool:
    """Whether ``max_llm_calls`` ended the run (not a token, cost or spend limit)."""
    return any(isinstance(link, LlmCallsLimitExceededError) for link in error_chain(error))


class ModelCallRecorder(MeteredCall):
    """Observes one logical model call: its spans, usage, attempts, waits, the response.

    The retry loop's one observer: ``CallSpans`` owns the spans,
    ``MeteredCall`` the usage meter's work, this adds the stored trace and
    the metrics. The flow makes one per logical call.

    Args:
        recorder: the invocation's recorder (its clock, its metrics switch).
        step: the trace step the call belongs to (None: a call outside a
            step, recorded nowhere); its ``model`` is set.
        request: the request, the same on every attempt.
        meter: the invocation's usage meter; ``count_attempt`` counts one
            attempt against ``max_llm_calls`` (see ``MeteredCall``).
        provider: the flow's model's provider, for metrics (a fallback
            chain's own; ``call_started`` names each model it tries).
        model: the flow's model name, likewise.
        conversation_id: the session, set on the call span.
        respect_retry_after: the config's, to tell whether a hint set a wait.
        agent_name: the calling agent.
        parent: the span to open the call span under.
        stream: whether the call streams (see ``MeteredCall``).
    """

    __slots__ = (
        "_attempt",
        "_call_start",
        "_conversation_id",
        "_hint_set_delay",
        "_model",
        "_paced",
        "_provider",
        "_recorder",
        "_respect_retry_after",
        "step",
    )

    def __init__(
        self,
        recorder: InvocationRecorder,
        step: StepTrace | None,
        request: LlmRequest,
        meter: UsageMeter,
        count_attempt: Callable[[], None],
        *,
        provider: str,
        model: str,
        conversation_id: str,
        respect_retry_after: bool,
        agent_name: str = "",
        parent: Span | None = None,
        stream: bool = False,
    ) -> None:
        if step is None:  # a call outside a step: its records go nowhere
            step = StepTrace(0, "", recorder.now())
        step.model = model
        MeteredCall.__init__(
            self, meter, request, step, count_attempt, agent_name, parent, stream=stream
        )
        self._recorder, self.step = recorder, step
        self._provider, self._model = provider, model
        self._conversation_id = conversation_id
        self._respect_retry_after = respect_retry_after
        self._attempt: AttemptTrace | None = None
        self._call_start = 0.0
        self._hint_set_delay = False
        self._paced: float | None = None

    def call_span_started(self, span: Span) -> None:
        """The ``call_llm`` span gets the call's facts and input when it records."""
        if span.is_recording():
            telemetry.set_call_facts(
                span, conversation_id=self._conversation_id, step=self.step.number
            )
            telemetry.record_content(span, telemetry.ATTR_INPUT_MESSAGES, self._request.contents)

    def attempt_started(self, attempt: int, delay: float, responses: Responses) -> Responses:
        """Attempt ``attempt`` starts, ``delay`` seconds after the previous one failed."""
        now = self._recorder.now()
        if attempt == 1:
            self._call_start = now
        waited = _micro(delay) if delay else delay  # to the microsecond, as every time
        self._attempt = AttemptTrace(attempt, now, waited, self._hint_set_delay)
        if self._paced is not None:
            self._attempt.paced, self._paced = _micro(self._paced), None
        self.step.attempts.append(self._attempt)
        if self._stream and self._hold is not None:  # a limit may cut it (``MeteredCall``)
            responses = self.within_reservation(responses)
        if not self.traced:  # no span to open (the check ``CallSpans`` makes, without its frame)
            return responses
        return CallSpans.attempt_started(self, attempt, delay, responses)

    def attempt_paced(self, seconds: float) -> None:
        """The next attempt waits ``seconds`` for the pacer: its trace says so."""
        self._paced = seconds

    def attempt_failed(self, details: RetryDetails, decision: RetryDecision) -> None:
        """The current attempt failed; ``decision`` is what the policy made of it."""
        now = self._recorder.now()
        attempt = self._attempt
        if attempt is not None:
            attempt.end, attempt.status = now, "error"
            attempt.error_type, attempt.status_code = details.error_type, details.status_code
            attempt.retry_after = details.retry_after
            attempt.outcome = "retry" if decision.retry else decision.reason.value
        if decision.retry:
            hint = details.retry_after
            self._hint_set_delay = (
                self._respect_retry_after and hint is not None and decision.delay == hint
            )
        if not self._recorder.metrics:
            return
        _metrics.record_failed_attempt(
            self._provider,
            self._model,
            details.error_type,
            decision.delay if decision.retry else None,
            self._hint_set_delay,
        )
        if not decision.retry:
            _metrics.record_failed_call(
                self._provider, self._model, now - self._call_start, details.error_type
            )

    def response_received(self, response: LlmResponse) -> None:
        """A response reached the flow; the complete one ends the attempt."""
        MeteredCall.response_received(self, response)
        if response.partial:
            return
        now = self._recorder.now()
        attempt = self._attempt
        if attempt is not None and attempt.end is None:
            attempt.end, attempt.status = now, "ok"
        step = self.step
        step.finish_reason = response.finish_reason
        input_tokens = output_tokens = None
        usage = self._usage  # checked: an invalid report is None (then estimated at the end)
        if usage is not None:
            input_tokens, output_tokens = usage.input_tokens, usage.output_tokens
            step.input_tokens = (step.input_tokens or 0) + input_tokens
            step.output_tokens = (step.output_tokens or 0) + output_tokens
        if self._recorder.metrics:
            _metrics.record_success(
                self._provider, self._model, now - self._call_start, input_tokens, output_tokens
            )
        span = self.call_span
        if self.traced and span is not None and span.is_recording():
            telemetry.record_response(
                span,
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                finish_reason=response.finish_reason,
                model_version=response.model_version,
            )
            telemetry.record_content(span, telemetry.ATTR_OUTPUT_MESSAGES, [response.content])
