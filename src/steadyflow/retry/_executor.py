"""The retry loop around one logical model call: the only place that retries or sleeps.

The flow calls ``generate_with_retries`` once per logical call (after its
before-model callbacks). Per attempt the loop calls the provider; after a
failure it follows the design's diagram, in this order: **decide** (describe
the error with ``classify.describe_failure``, ask the pure ``policy.decide``,
let the shared guards refuse), **give up** (raise the error) **or charge the
budget** for the retry, **log**, **wait** through the injectable clock. It
reports every step to one ``AttemptObserver`` (``_observer.py``), which owns
the spans and the trace. What it guarantees:

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
- An attempt is bounded as a whole, request to last response, by the
  model's ``timeout`` and what remains of ``total_timeout`` (``_deadline.py``):
  past it the attempt fails with ``ModelTimeoutError``.
- A shared budget and circuit breaker (``RetryConfig.budget`` /
  ``circuit_breaker``, see ``_guards.py``) are told every outcome and may
  refuse a retry or fail the call fast.
- A model that stands for several (``FallbackLlm``) walks them itself
  (``BaseLlm.call_models``); this loop is what it runs on each.
"""

from __future__ import annotations

import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from .._aio import aclose
from ..models.base import BaseLlm
from ..models.llm_request import LlmRequest
from ..models.llm_response import LlmResponse
from ._budget import budget_key
from ._classify import describe_failure
from ._clock import Clock, current_clock
from ._config import RetryConfig
from ._deadline import Limits, attempt_bound, within
from ._guards import Guards
from ._observer import AttemptObserver, CallSpans
from ._pacing import PacedCall
from ._policy import RetryDecision, RetryDetails, RetryReason, decide

if TYPE_CHECKING:
    from opentelemetry.trace import Span

__all__ = ["AttemptObserver", "generate_with_retries"]

logger = logging.getLogger("steadyflow.retry")


class _CallInfo(NamedTuple):
    """Who is calling what, for logs (made only once an attempt failed)."""

    model: str
    agent_name: str
    invocation_id: str
    max_attempts: int


def _log_retry(info: _CallInfo, details: RetryDetails, decision: RetryDecision) -> None:
    status = "" if details.status_code is None else f" (status {details.status_code})"
    paced = f" (paced {decision.paced:.3f}s)" if decision.paced else ""
    logger.warning(
        "model call failed, retrying: model=%s agent=%s invocation=%s attempt=%d/%d "
        "error=%s%s delay=%.3fs%s",
        info.model,
        info.agent_name,
        info.invocation_id,
        details.attempt,
        info.max_attempts,
        details.error_type,
        status,
        decision.delay,
        paced,
        extra={
            "model": info.model,
            "agent": info.agent_name,
            "invocation_id": info.invocation_id,
            "attempt": details.attempt,
            "delay": decision.delay,
            "paced": decision.paced,
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
    before_attempt: Callable[[], Awaitable[None] | None],
    agent_name: str = "",
    invocation_id: str = "",
    clock: Clock | None = None,
    random_source: Callable[[], float] | None = None,
    parent_span: Span | None = None,
    observer: AttemptObserver | None = None,
) -> AsyncIterator[LlmResponse]:
    """Call ``llm`` under ``config``, yielding the successful attempt's responses.

    Args:
        llm: the resolved model (a ``FallbackLlm`` runs this loop on each of its models).
        request: the request, sent unchanged on every attempt.
        stream: ask the provider for partial responses.
        config: the retry policy (``RetryConfig()`` = one attempt).
        before_attempt: charges one attempt to the invocation's budget (sync,
            or async when it asks a store); may raise an
            ``InvocationLimitError`` (calls, tokens, money), which propagates
            unchanged. Runs before the first attempt and, for each retry,
            before its wait.
        agent_name: the calling agent, for logs and spans.
        invocation_id: the invocation, for logs.
        clock: where time is read and waits happen; default ``current_clock()``.
        random_source: uniform draws from [0, 1) for jitter; default
            ``random.random``.
        parent_span: the calling agent's span, for the default observer;
            ``None`` uses the current context.
        observer: told about every step and owns the spans; default
            ``CallSpans(agent_name, parent_span)``.

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
        observer=observer if observer is not None else CallSpans(agent_name, parent_span),
    )
    # Returned, not re-yielded: a generator layer costs on every response.
    if type(llm).call_models is BaseLlm.call_models:  # one model: nothing to walk
        return loop.run(llm, request)
    return llm.call_models(request, loop.run, config.retryable_status_codes)


@dataclass(slots=True)
class _RetryLoop:
    """One logical call's attempts on a model; ``run`` is the generator the flow consumes."""

    stream: bool
    config: RetryConfig
    before_attempt: Callable[[], Awaitable[None] | None]
    agent_name: str
    invocation_id: str
    clock: Clock
    draw: Callable[[], float]
    observer: AttemptObserver

    async def run(self, llm: BaseLlm, request: LlmRequest) -> AsyncIterator[LlmResponse]:
        """Attempts on ``llm`` until one succeeds or the policy gives up."""
        observer, config, model = self.observer, self.config, request.model or llm.model
        guards = paced = None
        if config.shares_state:
            guards = Guards.of(config, llm.provider, model)
            if config.pacer is not None:
                paced = PacedCall(config.pacer, budget_key(llm.provider, model), request, model)
        observer.call_started(llm.provider, model)
        start, attempt, delay = self.clock.monotonic(), 0, 0.0
        outcome: Exception | None = None
        try:
            if guards is None and paced is None:  # nothing else to admit the first attempt
                pending = self.before_attempt()  # ``_charge``, inline: no coroutine to make
                if pending is not None:
                    await pending
            else:
                delay = await self._admit_first(guards, paced, start)
            plain = paced is None and llm.timeout is None and not config.bounds_attempts
            while True:
                attempt += 1
                failure: Exception | None = None
                emitted = finished = False
                responses = (
                    llm.generate_content_async(request, stream=self.stream)
                    if plain  # no deadline to put on the attempt, no pacer to tell
                    else self._attempt(llm, request, model, start, paced)
                )
                responses = observer.attempt_started(attempt, delay, responses)
                try:
                    async for response in responses:
                        emitted = True
                        observer.response_received(response)
                        yield response
                    finished = True
                except Exception as error:
                    failure = error
                finally:
                    if not finished:  # a finished generator has nothing to close
                        await aclose(responses)
                    observer.attempt_ended(failure)
                    if paced is not None:
                        await paced.ended(failure)
                if failure is None:
                    if guards is not None:
                        await guards.record(failed=False)
                    return
                facts, decision = await self._decide(
                    llm, guards, paced, failure, attempt, start, emitted
                )
                info = _CallInfo(model, self.agent_name, self.invocation_id, config.max_attempts)
                if not decision.retry:  # give up ...
                    _log_give_up(info, facts, decision)
                    raise failure
                delay = await self._charge_and_wait(info, facts, decision, paced)
        except Exception as error:
            outcome = error
            raise
        finally:
            observer.call_ended(attempt, outcome)

    def _attempt(
        self,
        llm: BaseLlm,
        request: LlmRequest,
        model: str,
        start: float,
        paced: PacedCall | None,
    ) -> AsyncIterator[LlmResponse]:
        """One attempt's responses, under its deadlines, with headers heard by the pacer."""
        responses = llm.generate_content_async(request, stream=self.stream)
        config, total = self.config, self.config.total_timeout
        bound = (
            llm.timeout
            if total is None
            else attempt_bound(llm.timeout, total, self.clock.monotonic() - start)
        )
        silence = config.stream_idle_timeout if self.stream else None
        first = config.first_byte_timeout if llm.timeout is None else None
        if bound is not None or silence is not None or first is not None:
            limits = Limits(whole=bound, first=first, idle=silence)
            responses = within(responses, limits, provider=llm.provider, model=model)
        if paced is not None:
            responses = paced.listen(responses)
        return responses

    async def _admit_first(
        self, guards: Guards | None, paced: PacedCall | None, start: float
    ) -> float:
        """Let the first attempt start: pacer, guards, call budget, then the paced wait.

        Returns the seconds waited for the pacer. A refusal by the pacer sends
        nothing and charges nothing.
        """
        total = self.config.total_timeout
        if paced is not None:
            ticket = await paced.admit(earliest=0.0, left=total, first=True)
            if not ticket.admitted:
                raise paced.refusal(ticket, total)
        try:
            if guards is not None:
                await guards.admit_first()
            await self._charge()
            if paced is None or paced.ticket is None or paced.ticket.wait <= 0:
                return 0.0
            wait = paced.ticket.wait - (self.clock.monotonic() - start)
            wait = max(0.0, wait)
            self.observer.attempt_paced(wait)
            await self.clock.sleep(wait)
            return wait
        except BaseException:
            if paced is not None:
                await paced.release()
            raise

    async def _charge_and_wait(
        self,
        info: _CallInfo,
        facts: RetryDetails,
        decision: RetryDecision,
        paced: PacedCall | None,
    ) -> float:
        """Charge the call budget for the retry, log it, wait its delay; the delay."""
        try:
            await self._charge()
            _log_retry(info, facts, decision)
            await self.clock.sleep(decision.delay)
        except BaseException:
            if paced is not None:
                await paced.release()
            raise
        return decision.delay

    async def _charge(self) -> None:
        """Charge one attempt: the call budget, and the usage meter when it is async."""
        pending = self.before_attempt()
        if pending is not None:
            await pending

    async def _decide(
        self,
        llm: BaseLlm,
        guards: Guards | None,
        paced: PacedCall | None,
        failure: Exception,
        attempt: int,
        start: float,
        emitted: bool,
    ) -> tuple[RetryDetails, RetryDecision]:
        """The facts of a failed attempt and what to do: the policy's, the pacer's, the guards'."""
        details = describe_failure(
            llm,
            failure,
            self.config.retryable_status_codes,
            attempt=attempt,
            elapsed=self.clock.monotonic() - start,
            output_emitted=emitted,
        )
        decision = decide(self.config, details, jitter=2.0 * self.draw() - 1.0)
        if paced is not None and decision.retry:
            decision = await self._pace_retry(paced, details, decision)
        if guards is not None:
            decision = await guards.after_failure(details, decision)
        if paced is not None and not decision.retry:
            await paced.release()
        self.observer.attempt_failed(details, decision)
        return details, decision

    async def _pace_retry(
        self, paced: PacedCall, details: RetryDetails, decision: RetryDecision
    ) -> RetryDecision:
        """The retry's wait stretched to the pacer's slot, or given up when none fits in time."""
        total = self.config.total_timeout
        left = None if total is None else total - details.elapsed
        ticket = await paced.admit(earliest=decision.delay, left=left)
        if not ticket.admitted:
            reason = (
                RetryReason.QUOTA_EXHAUSTED
                if ticket.quota_reset is not None
                else RetryReason.PACED_PAST_DEADLINE
            )
            return RetryDecision(retry=False, delay=0.0, reason=reason)
        if ticket.wait > decision.delay:
            extra = ticket.wait - decision.delay
            self.observer.attempt_paced(extra)
            return RetryDecision(True, ticket.wait, decision.reason, paced=extra)
        return decision
