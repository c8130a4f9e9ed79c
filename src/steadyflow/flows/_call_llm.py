"""The call step: callbacks around one logical model call.

Order: before-model callbacks (may edit the request, or answer instead of
the model: then no model call and no budget use) -> model resolution ->
the retry policy (every attempt counted against ``max_llm_calls``) ->
after-model callbacks on the complete response -> or, once the policy gave
up, on-model-error callbacks (once, with the last error), whose response
replaces the failed call (and goes through the after-model callbacks).
Each attempt is admitted by the usage meter first (``steadyflow.usage``:
token, cost and spend limits, checked against the attempt's estimate), then
counted. ``InvocationLimitError`` (``LlmCallsLimitExceededError``,
``UsageLimitExceededError``) never reaches on-model-error callbacks, and
neither does an error raised by a callback: only the model call is in their
scope.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from .._aio import aclose
from ..context import CallbackContext, InvocationContext
from ..errors import call_limit_in_chain
from ..models.llm_request import LlmRequest
from ..models.llm_response import LlmResponse
from ..retry._executor import generate_with_retries
from ..run_config import StreamingMode
from ..trace_record import ModelCallRecorder, StepTrace
from ._callbacks import Callbacks, chained, run_callbacks

if TYPE_CHECKING:
    from ._agent import FlowAgent

__all__ = ["SHORT_CIRCUIT_KEY", "call_llm"]

SHORT_CIRCUIT_KEY = "steadyflow.short_circuit"


@dataclass(frozen=True, slots=True)
class _ModelCallbacks:
    """The plugins' hooks, then the agent's callbacks, for each point of the call."""

    before: Callbacks
    after: Callbacks
    on_error: Callbacks

    @classmethod
    def of(cls, ctx: InvocationContext, agent: FlowAgent) -> _ModelCallbacks | None:
        """The call's callbacks (asked once a plugin or callback is set); None if none apply."""
        callbacks = cls(
            chained(ctx, "before_model_callback", agent.before_model_callbacks),
            chained(ctx, "after_model_callback", agent.after_model_callbacks),
            chained(ctx, "on_model_error_callback", agent.on_model_error_callbacks),
        )
        return callbacks if callbacks.before or callbacks.after or callbacks.on_error else None


async def _after_model(
    callbacks: _ModelCallbacks, callback_context: CallbackContext, response: LlmResponse
) -> LlmResponse:
    if not callbacks.after:
        return response
    replaced = await run_callbacks(
        callbacks.after, callback_context=callback_context, llm_response=response
    )
    return response if replaced is None else cast(LlmResponse, replaced)


def _call_model(
    ctx: InvocationContext, agent: FlowAgent, request: LlmRequest, step: StepTrace | None
) -> AsyncIterator[LlmResponse]:
    """The model's responses under the retry policy, recorded in the trace as they come."""
    llm = agent.canonical_model
    stream = ctx.run_config.streaming_mode is StreamingMode.SSE
    observer = ModelCallRecorder(
        ctx.trace,
        step,
        request,
        ctx.usage,
        ctx.budget.increment,  # ``ctx.increment_llm_call_count``, one frame less per attempt
        provider=llm.provider,
        model=request.model or llm.model,
        conversation_id=ctx.session.id,
        respect_retry_after=ctx.run_config.retry_config.respect_retry_after,
        agent_name=agent.name,
        parent=ctx.agent_span,
        stream=stream,
    )
    return generate_with_retries(
        llm,
        request,
        stream=stream,
        config=ctx.run_config.retry_config,
        before_attempt=observer.before_attempt,
        agent_name=agent.name,
        invocation_id=ctx.invocation_id,
        observer=observer,
    )


def call_llm(
    agent: FlowAgent,
    ctx: InvocationContext,
    request: LlmRequest,
    callback_context: CallbackContext,
    step: StepTrace | None = None,
) -> AsyncIterator[LlmResponse]:
    """The responses of one logical model call (partials, then the complete one).

    ``step`` is the trace step the call belongs to; its attempts, tokens and
    short-circuits are recorded there. The runner's plugins' hooks run before
    the agent's own callbacks. A call without any callbacks gets the retry
    loop's generator itself: a layer with nothing to do would cost on every
    response.
    """
    if (
        ctx.plugins.plugins
        or agent.before_model_callbacks
        or agent.after_model_callbacks
        or agent.on_model_error_callbacks
    ):
        callbacks = _ModelCallbacks.of(ctx, agent)
        if callbacks is not None:
            return _call_with_callbacks(ctx, agent, request, callback_context, step, callbacks)
    return _call_model(ctx, agent, request, step)


async def _call_with_callbacks(
    ctx: InvocationContext,
    agent: FlowAgent,
    request: LlmRequest,
    callback_context: CallbackContext,
    step: StepTrace | None,
    callbacks: _ModelCallbacks,
) -> AsyncIterator[LlmResponse]:
    """``_call_model`` inside the before-, after- and on-error model callbacks."""
    if callbacks.before:
        answer = await run_callbacks(
            callbacks.before, callback_context=callback_context, llm_request=request
        )
        if answer is not None:
            answer = cast(LlmResponse, answer)
            metadata = dict(answer.custom_metadata or {})
            metadata[SHORT_CIRCUIT_KEY] = "before_model_callback"
            if step is not None:
                step.short_circuit = "before_model_callback"
            yield answer.model_copy(update={"custom_metadata": metadata})
            return
    responses = _guarded_call(ctx, agent, request, callback_context, step, callbacks.on_error)
    try:
        async for response in responses:
            yield (
                response
                if response.partial
                else await _after_model(callbacks, callback_context, response)
            )
    finally:
        await aclose(responses)


async def _guarded_call(
    ctx: InvocationContext,
    agent: FlowAgent,
    request: LlmRequest,
    callback_context: CallbackContext,
    step: StepTrace | None,
    on_error: Callbacks,
) -> AsyncIterator[LlmResponse]:
    """The model's responses, or an on-model-error callback's replacement.

    Only the model call is in the error callbacks' scope: an after-model
    callback runs outside it, so its own error propagates as it is.
    """
    responses = _call_model(ctx, agent, request, step)
    try:
        async for response in responses:
            yield response
        return
    except Exception as error:
        if not on_error or call_limit_in_chain(error):
            raise
        replacement = await run_callbacks(
            on_error, callback_context=callback_context, llm_request=request, error=error
        )
        if replacement is None:
            raise
    finally:
        await aclose(responses)
    if step is not None:
        step.short_circuit = "on_model_error_callback"
    yield cast(LlmResponse, replacement)
