"""The retry loop around one logical model call: the only place that retries or sleeps.

The flow calls ``generate_with_retries`` once per logical call (after its
before-model callbacks). Per attempt the loop counts the attempt against the
invocation's budget, calls the provider, and on failure describes the error
(``classify.describe_failure``), asks the pure policy (``policy.decide``) and
waits through the injectable clock. What it guarantees:

- A failed attempt leaves nothing behind: it yielded nothing, so the flow
  built no event and wrote nothing to the session.
- Once an attempt yielded a response (partial or not) the call is committed:
  a later error propagates unchanged and is never retried.
- ``LlmCallsLimitExceededError`` propagates unchanged, whichever attempt hits
  it. The budget is charged for a retry *before* its wait, so a spent budget
  fails at once instead of after a useless sleep.
- When the policy gives up, the last provider error propagates unchanged,
  for the flow's on-model-error callbacks.
- Cancellation during a wait cancels the wait at once (``Clock.sleep``).
- A shared budget and circuit breaker (``RetryConfig.budget`` /
  ``circuit_breaker``, see ``guards.py``) are told every outcome and may
  refuse a retry or fail the call fast.
- A model that stands for several (``FallbackLlm``) walks them itself
  (``BaseLlm.call_models``); this loop is what it runs on each.
"""

from __future__ import annotations

import logging
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol

from .. import telemetry
from .._aio import aclose
from ..models.base import BaseLlm
from ..models.llm_request import LlmRequest
from ..models.llm_response import LlmResponse
from .classify import describe_failure
from .clock import Clock, current_clock
from .config import RetryConfig
from .guards import Guards
from .policy import RetryDecision, RetryDetails, decide

if TYPE_CHECKING:
    from opentelemetry.trace import Span

__all__ = ["AttemptObserver", "generate_with_retries"]

logger = logging.getLogger("steadyflow.retry")


class AttemptObserver(Protocol):
    """Told what the loop does as it does it (the invocation's trace and metrics listen).

    The loop only reports; an observer must not raise.
    """

    def call_started(self, span: Span) -> None:
        """The logical call's span is open (a non-recording span without an SDK)."""

    def attempt_started(self, attempt: int, delay: float) -> None:
        """Attempt ``attempt`` (1 = first) starts after waiting ``delay`` seconds."""

    def attempt_failed(self, details: RetryDetails, decision: RetryDecision) -> None:
        """The attempt failed; ``decision`` says whether a retry follows, and when."""

    def response_received(self, response: LlmResponse) -> None:
        """The attempt yields ``response`` to the flow (the complete one ends it)."""


class _CallInfo(NamedTuple):
    """Who is calling what, for logs (a tuple: one is made per model call)."""

    model: str
    agent_name: str
    invocation_id: str
    max_attempts: int


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


def _log_retry(info: _CallInfo, details: RetryDetails, decision: RetryDecision) -> None:
    status = "" if details.status_code is None else f" (status {details.status_code})"
    logger.warning(
        "model call failed, retrying: model=%s agent=%s invocation=%s attempt=%d/%d "
        "error=%s%s delay=%.3fs",
        info.model,
        info.agent_name,
        info.invocation_id,
        details.attempt,
        info.max_attempts,
        details.error_type,
        status,
        decision.delay,
        extra={
            "model": info.model,
            "agent": info.agent_name,
            "invocation_id": info.invocation_id,
            "attempt": details.attempt,
            "delay": decision.delay,
            "error_type": details.error_type,
            "status_code": details.status_code,
        },
    )


def _log_give_up(info: _CallInfo, details: RetryDetails, decision: RetryDecision) -> None:
    if details.attempt == 1 and info.max_attempts == 1:
        return  # retries are off: nothing was given up
    logger.info(
        "model call failed, not retrying: model=%s agent=%s invocation=%s attempt=%d/%d "
        "error=%s reason=%s",
        info.model,
        info.agent_name,
        info.invocation_id,
        details.attempt,
        info.max_attempts,
        details.error_type,
        decision.reason.value,
    )


def generate_with_retries(
    llm: BaseLlm,
    request: LlmRequest,
    *,
    stream: bool,
    config: RetryConfig,
    before_attempt: Callable[[], None],
    agent_name: str = "",
    invocation_id: str = "",
    clock: Clock | None = None,
    random_source: Callable[[], float] | None = None,
    parent_span: Span | None = None,
    observer: AttemptObserver | None = None,
) -> AsyncIterator[LlmResponse]:
    """Call ``llm`` under ``config``, yielding the successful attempt's responses.

    Args:
        llm: the resolved model.
        request: the request, sent unchanged on every attempt.
        stream: ask the provider for partial responses.
        config: the retry policy (``RetryConfig()`` = one attempt).
        before_attempt: charges one attempt to the invocation's budget; may
            raise ``LlmCallsLimitExceededError``, which propagates unchanged.
            Runs before the first attempt and, for each retry, before its wait.
        agent_name: the calling agent, for logs and spans.
        invocation_id: the invocation, for logs.
        clock: where time is read and waits happen; default ``current_clock()``.
        random_source: uniform draws from [0, 1) for jitter; default
            ``random.random``.
        parent_span: the calling agent's span; ``None`` uses the current context.
        observer: told about the call's span, each attempt and each failure.

    Raises:
        LlmCallsLimitExceededError: the budget is spent.
        Exception: the last provider error, unchanged, once the policy gives up.
    """
    loop = _RetryLoop(
        stream=stream,
        config=config,
        before_attempt=before_attempt,
        agent_name=agent_name,
        invocation_id=invocation_id,
        clock=clock if clock is not None else current_clock(),
        draw=random_source if random_source is not None else random.random,
        parent_span=parent_span,
        observer=observer,
    )
    # Returned, not re-yielded: a generator layer costs on every response.
    return llm.call_models(request, loop.run, config.retryable_status_codes)


@dataclass
class _RetryLoop:
    """One logical call's attempts on a model; ``run`` is the generator the flow consumes."""

    stream: bool
    config: RetryConfig
    before_attempt: Callable[[], None]
    agent_name: str
    invocation_id: str
    clock: Clock
    draw: Callable[[], float]
    parent_span: Span | None
    observer: AttemptObserver | None

    async def run(self, llm: BaseLlm, request: LlmRequest) -> AsyncIterator[LlmResponse]:
        """Attempts on ``llm`` until one succeeds or the policy gives up."""
        model = request.model or llm.model
        info = _CallInfo(model, self.agent_name, self.invocation_id, self.config.max_attempts)
        guards = Guards.of(self.config, llm.provider, model)
        call_span = telemetry.start_llm_call_span(
            model=model, provider=llm.provider, agent_name=self.agent_name, parent=self.parent_span
        )
        if self.observer is not None:
            self.observer.call_started(call_span)
        start = self.clock.monotonic()
        attempt, delay = 0, 0.0
        try:
            if guards is not None:
                await guards.admit_first()
            self.before_attempt()
            while True:
                attempt += 1
                span = telemetry.start_llm_attempt_span(call_span, attempt=attempt, delay=delay)
                if self.observer is not None:
                    self.observer.attempt_started(attempt, delay)
                failure: Exception | None = None
                emitted = False
                responses = llm.generate_content_async(request, stream=self.stream)
                if span.get_span_context().is_valid:
                    responses = _with_span_current(responses, span)
                try:
                    async for response in responses:
                        emitted = True
                        if self.observer is not None:
                            self.observer.response_received(response)
                        yield response
                except Exception as error:
                    telemetry.record_error(span, error)
                    failure = error
                finally:
                    await aclose(responses)
                    span.end()
                if failure is None:
                    if guards is not None:
                        await guards.record(failed=False)
                    return
                elapsed = self.clock.monotonic() - start
                delay = await self._retry_delay(
                    llm, info, guards, failure, attempt, elapsed, emitted
                )
                await self.clock.sleep(delay)
        except Exception as error:
            telemetry.record_error(call_span, error, exception_event=True)
            raise
        finally:
            call_span.set_attribute(telemetry.ATTR_LLM_ATTEMPTS, attempt)
            call_span.end()

    async def _retry_delay(
        self,
        llm: BaseLlm,
        info: _CallInfo,
        guards: Guards | None,
        failure: Exception,
        attempt: int,
        elapsed: float,
        emitted: bool,
    ) -> float:
        """The wait before the next attempt, charged to the budget; raises ``failure`` to stop."""
        details = describe_failure(
            llm,
            failure,
            self.config.retryable_status_codes,
            attempt=attempt,
            elapsed=elapsed,
            output_emitted=emitted,
        )
        decision = decide(self.config, details, jitter=2.0 * self.draw() - 1.0)
        if guards is not None:
            decision = await guards.after_failure(details, decision)
        if self.observer is not None:
            self.observer.attempt_failed(details, decision)
        if not decision.retry:
            _log_give_up(info, details, decision)
            raise failure
        self.before_attempt()
        _log_retry(info, details, decision)
        return decision.delay
