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
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from .._aio import aclose
from ..models.base import BaseLlm
from ..models.llm_request import LlmRequest
from ..models.llm_response import LlmResponse
from ._classify import describe_failure
from ._clock import Clock, current_clock
from ._config import RetryConfig
from ._deadline import attempt_bound, within
from ._guards import Guards
from ._observer import AttemptObserver, CallSpans
from ._policy import RetryDecision, RetryDetails, decide

if TYPE_CHECKING:
    from opentelemetry.trace import Span

__all__ = ["AttemptObserver", "generate_with_retries"]

logger = logging.getLogger("steadyflow.retry")


class _CallInfo(NamedTuple):
    """Who is calling what, for logs (a tuple: one is made per model call)."""

    model: str
    agent_name: str
    invocation_id: str
    max_attempts: int


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
        llm: the resolved model (a ``FallbackLlm`` runs this loop on each of its models).
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
    observer: AttemptObserver

    async def run(self, llm: BaseLlm, request: LlmRequest) -> AsyncIterator[LlmResponse]:
        """Attempts on ``llm`` until one succeeds or the policy gives up."""
        observer, model = self.observer, request.model or llm.model
        info = _CallInfo(model, self.agent_name, self.invocation_id, self.config.max_attempts)
        guards = Guards.of(self.config, llm.provider, model)
        observer.call_started(llm.provider, model)
        start, attempt, delay = self.clock.monotonic(), 0, 0.0
        total = self.config.total_timeout
        outcome: Exception | None = None
        try:
            if guards is not None:
                await guards.admit_first()
            self.before_attempt()
            while True:
                attempt += 1
                failure: Exception | None = None
                emitted = False
                responses = llm.generate_content_async(request, stream=self.stream)
                bound = attempt_bound(llm.timeout, total, self.clock.monotonic() - start)
                if bound is not None:
                    responses = within(responses, bound, provider=llm.provider, model=model)
                responses = observer.attempt_started(attempt, delay, responses)
                try:
                    async for response in responses:
                        emitted = True
                        observer.response_received(response)
                        yield response
                except Exception as error:
                    failure = error
                finally:
                    await aclose(responses)
                    observer.attempt_ended(failure)
                if failure is None:
                    if guards is not None:
                        await guards.record(failed=False)
                    return
                facts, decision = await self._decide(llm, guards, failure, attempt, start, emitted)
                if not decision.retry:  # give up ...
                    _log_give_up(info, facts, decision)
                    raise failure
                self.before_attempt()  # ... or charge the budget for the retry
                _log_retry(info, facts, decision)
                delay = decision.delay
                await self.clock.sleep(delay)
        except Exception as error:
            outcome = error
            raise
        finally:
            observer.call_ended(attempt, outcome)

    async def _decide(
        self,
        llm: BaseLlm,
        guards: Guards | None,
        failure: Exception,
        attempt: int,
        start: float,
        emitted: bool,
    ) -> tuple[RetryDetails, RetryDecision]:
        """The facts of a failed attempt and what to do: the policy's call, then the guards'."""
        details = describe_failure(
            llm,
            failure,
            self.config.retryable_status_codes,
            attempt=attempt,
            elapsed=self.clock.monotonic() - start,
            output_emitted=emitted,
        )
        decision = decide(self.config, details, jitter=2.0 * self.draw() - 1.0)
        if guards is not None:
            decision = await guards.after_failure(details, decision)
        self.observer.attempt_failed(details, decision)
        return details, decision
