"""OpenTelemetry spans for steadyflow, written against the API alone.

Only ``opentelemetry-api`` is a dependency, imported only when a provider
may have been set (``_api``); until then the helpers return a
no-op span without importing it. Once the API is loaded its spans are used: with no SDK
the helpers skip all attribute work for its non-recording spans and never
build a context for an invalid span, so tracing costs close to nothing until
a user installs a ``TracerProvider``.

Spans are started *without* becoming current: the model call runs inside an
async generator that yields to the flow between chunks, and a context
attached across a ``yield`` would leak into (and be detached from) the
caller's context. ``activate(span)`` makes a span current only around code
that does not yield, such as one await on the provider.

Span names and attributes (GenAI semantic conventions where they exist):

- ``invoke_agent {agent}``: one agent's run inside an invocation, a child of
  the caller's current span (or of the agent that transferred to it);
  ``gen_ai.operation.name`` = ``invoke_agent``, ``gen_ai.agent.name``,
  ``gen_ai.conversation.id`` (the session id), ``steadyflow.invocation.id``,
  and on end ``steadyflow.steps``, ``steadyflow.callback.short_circuits``,
  ``steadyflow.llm.budget.used`` / ``.limit``.
- ``call_llm {model}``: one logical model call, a child of the agent span;
  ``gen_ai.operation.name`` = ``chat``, ``gen_ai.provider.name``,
  ``gen_ai.request.model``, ``gen_ai.agent.name``, ``gen_ai.conversation.id``,
  ``steadyflow.step``, and on end ``steadyflow.llm.attempts``,
  ``gen_ai.usage.input_tokens`` / ``output_tokens``,
  ``gen_ai.response.finish_reasons``.
- ``llm_attempt``: one provider attempt, a child of the call span;
  ``steadyflow.llm.attempt`` (1 = first), ``steadyflow.llm.retry.delay_ms``
  (the wait before this attempt, 0 for the first), ``error.type`` on failure.
- ``execute_tool {tool}``: one tool call, a child of the agent span and
  current while the tool runs; ``gen_ai.operation.name`` = ``execute_tool``,
  ``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``gen_ai.tool.type``,
  ``steadyflow.callback.short_circuit`` when a before-tool callback answered.

Prompt and response bodies are never recorded unless the user opts in with
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`` (the GenAI
conventions' switch); then ``gen_ai.input.messages`` /
``gen_ai.output.messages`` and tool arguments and results are added as JSON,
and only to spans that record. The metrics are in ``_metrics``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Generator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, cast

from . import _api
from ._api import TRACER_NAME

if TYPE_CHECKING:
    from opentelemetry.trace import Span, SpanKind
    from opentelemetry.util.types import AttributeValue

__all__ = [
    "ATTR_AGENT_NAME",
    "ATTR_BUDGET_LIMIT",
    "ATTR_BUDGET_USED",
    "ATTR_CONVERSATION_ID",
    "ATTR_ERROR_TYPE",
    "ATTR_FINISH_REASONS",
    "ATTR_INPUT_MESSAGES",
    "ATTR_INVOCATION_ID",
    "ATTR_LLM_ATTEMPT",
    "ATTR_LLM_ATTEMPTS",
    "ATTR_LLM_RETRY_DELAY_MS",
    "ATTR_OPERATION_NAME",
    "ATTR_OUTPUT_MESSAGES",
    "ATTR_PROVIDER_NAME",
    "ATTR_REQUEST_MODEL",
    "ATTR_RESPONSE_MODEL",
    "ATTR_SHORT_CIRCUIT",
    "ATTR_SHORT_CIRCUITS",
    "ATTR_STEP",
    "ATTR_STEPS",
    "ATTR_TOKEN_TYPE",
    "ATTR_TOOL_CALL_ARGUMENTS",
    "ATTR_TOOL_CALL_ID",
    "ATTR_TOOL_CALL_RESULT",
    "ATTR_TOOL_NAME",
    "ATTR_TOOL_TYPE",
    "ATTR_USAGE_COST",
    "CAPTURE_CONTENT_ENV",
    "TRACER_NAME",
    "activate",
    "capture_content",
    "end_agent_span",
    "record_content",
    "record_error",
    "record_response",
    "set_call_facts",
    "start_agent_span",
    "start_llm_attempt_span",
    "start_llm_call_span",
    "start_span",
    "start_tool_span",
]


ATTR_OPERATION_NAME = "gen_ai.operation.name"
ATTR_PROVIDER_NAME = "gen_ai.provider.name"
ATTR_REQUEST_MODEL = "gen_ai.request.model"
ATTR_AGENT_NAME = "gen_ai.agent.name"
ATTR_ERROR_TYPE = "error.type"
ATTR_LLM_ATTEMPT = "steadyflow.llm.attempt"
ATTR_LLM_ATTEMPTS = "steadyflow.llm.attempts"
ATTR_LLM_RETRY_DELAY_MS = "steadyflow.llm.retry.delay_ms"
ATTR_CONVERSATION_ID = "gen_ai.conversation.id"
ATTR_USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens"
ATTR_USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
ATTR_USAGE_COST = "steadyflow.usage.cost"
ATTR_FINISH_REASONS = "gen_ai.response.finish_reasons"
ATTR_RESPONSE_MODEL = "gen_ai.response.model"
ATTR_TOKEN_TYPE = "gen_ai.token.type"
ATTR_TOOL_NAME = "gen_ai.tool.name"
ATTR_TOOL_CALL_ID = "gen_ai.tool.call.id"
ATTR_TOOL_TYPE = "gen_ai.tool.type"
ATTR_INPUT_MESSAGES = "gen_ai.input.messages"
ATTR_OUTPUT_MESSAGES = "gen_ai.output.messages"
ATTR_TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments"
ATTR_TOOL_CALL_RESULT = "gen_ai.tool.call.result"
ATTR_INVOCATION_ID = "steadyflow.invocation.id"
ATTR_STEP = "steadyflow.step"
ATTR_STEPS = "steadyflow.steps"
ATTR_SHORT_CIRCUIT = "steadyflow.callback.short_circuit"
ATTR_SHORT_CIRCUITS = "steadyflow.callback.short_circuits"
ATTR_BUDGET_USED = "steadyflow.llm.budget.used"
ATTR_BUDGET_LIMIT = "steadyflow.llm.budget.limit"

CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


def start_span(
    name: str,
    *,
    parent: Span | None = None,
    kind: SpanKind | None = None,
    attributes: Mapping[str, AttributeValue] | None = None,
) -> Span:
    """Start (but do not activate) a span; the caller must ``end()`` it.

    Args:
        name: the span name.
        parent: the parent span; ``None`` uses the current context. A parent
            that is not a real span (no SDK) yields a no-op span at once.
        kind: the OpenTelemetry span kind; ``None`` for ``INTERNAL``.
        attributes: attributes known at start (samplers can see them).
    """
    if (noop := _api.noop_child(parent)) is not None:
        return noop
    import opentelemetry.trace as trace

    context = None if parent is None else trace.set_span_in_context(parent)
    kind = trace.SpanKind.INTERNAL if kind is None else kind
    return _api.tracer().start_span(name, context=context, kind=kind, attributes=attributes)


@contextmanager
def activate(span: Span) -> Generator[None, None, None]:
    """Make ``span`` current for the body; a no-op for invalid (no-SDK) spans.

    Use it only around code that does not yield out of a generator.
    """
    if not span.get_span_context().is_valid:
        yield
        return
    import opentelemetry.context as otel_context
    import opentelemetry.trace as trace

    token = otel_context.attach(trace.set_span_in_context(span))
    try:
        yield
    finally:
        otel_context.detach(token)


def record_error(span: Span, error: BaseException, *, exception_event: bool = False) -> None:
    """Mark ``span`` failed: ``error.type`` and an ERROR status.

    Args:
        span: the span to mark.
        error: what went wrong.
        exception_event: also attach the exception (with traceback) as an event.
    """
    if not span.is_recording():
        return
    import opentelemetry.trace as trace

    span.set_attribute(ATTR_ERROR_TYPE, type(error).__qualname__)
    span.set_status(trace.Status(trace.StatusCode.ERROR, f"{type(error).__qualname__}: {error}"))
    if exception_event:
        span.record_exception(error)


def start_llm_call_span(
    *, model: str, provider: str, agent_name: str, parent: Span | None = None
) -> Span:
    """Start the ``call_llm {model}`` span of one logical model call.

    ``parent`` is the agent's span; ``None`` uses the current context.
    """
    if (noop := _api.noop_child(parent)) is not None:
        return noop
    import opentelemetry.trace as trace

    return start_span(
        f"call_llm {model}",
        parent=parent,
        kind=trace.SpanKind.CLIENT,
        attributes={
            ATTR_OPERATION_NAME: "chat",
            ATTR_PROVIDER_NAME: provider,
            ATTR_REQUEST_MODEL: model,
            ATTR_AGENT_NAME: agent_name,
        },
    )


def start_llm_attempt_span(call_span: Span, *, attempt: int, delay: float) -> Span:
    """Start the ``llm_attempt`` child span of ``call_span``.

    Args:
        call_span: the logical call's span.
        attempt: the attempt number (1 = first).
        delay: seconds waited before this attempt (0 for the first).
    """
    if (noop := _api.noop_child(call_span)) is not None:
        return noop
    return start_span(
        "llm_attempt",
        parent=call_span,
        attributes={
            ATTR_LLM_ATTEMPT: attempt,
            ATTR_LLM_RETRY_DELAY_MS: round(delay * 1000.0, 3),
        },
    )


def start_agent_span(
    agent_name: str, *, conversation_id: str, invocation_id: str, parent: Span | None
) -> Span:
    """Start the ``invoke_agent {agent}`` span of one agent run.

    Args:
        agent_name: the agent.
        conversation_id: the session id.
        invocation_id: the invocation the run belongs to.
        parent: the transferring agent's span; ``None`` for the caller's current span.
    """
    if (noop := _api.noop_child(parent)) is not None:
        return noop
    return start_span(
        f"invoke_agent {agent_name}",
        parent=parent,
        attributes={
            ATTR_OPERATION_NAME: "invoke_agent",
            ATTR_AGENT_NAME: agent_name,
            ATTR_CONVERSATION_ID: conversation_id,
            ATTR_INVOCATION_ID: invocation_id,
        },
    )


def end_agent_span(
    span: Span, *, steps: int, short_circuits: int, budget_used: int, budget_limit: int
) -> None:
    """Record the run's step count, short-circuits and budget use, then end ``span``."""
    if span.is_recording():
        span.set_attributes(
            {
                ATTR_STEPS: steps,
                ATTR_SHORT_CIRCUITS: short_circuits,
                ATTR_BUDGET_USED: budget_used,
                ATTR_BUDGET_LIMIT: budget_limit,
            }
        )
    span.end()


def start_tool_span(tool_name: str, call_id: str | None, *, parent: Span | None) -> Span:
    """Start the ``execute_tool {tool}`` span of one tool call."""
    if (noop := _api.noop_child(parent)) is not None:
        return noop
    attributes: dict[str, AttributeValue] = {
        ATTR_OPERATION_NAME: "execute_tool",
        ATTR_TOOL_NAME: tool_name,
        ATTR_TOOL_TYPE: "function",
    }
    if call_id:
        attributes[ATTR_TOOL_CALL_ID] = call_id
    return start_span(f"execute_tool {tool_name}", parent=parent, attributes=attributes)


def set_call_facts(span: Span, *, conversation_id: str, step: int) -> None:
    """Add the session and step to a ``call_llm`` span the retry loop opened."""
    if span.is_recording():
        span.set_attributes({ATTR_CONVERSATION_ID: conversation_id, ATTR_STEP: step})


def record_response(
    span: Span,
    *,
    input_tokens: int | None,
    output_tokens: int | None,
    finish_reason: str | None,
    model_version: str | None,
) -> None:
    """Add a complete response's usage, finish reason and model to ``span``."""
    if not span.is_recording():
        return
    attributes: dict[str, AttributeValue] = {}
    if input_tokens is not None:
        attributes[ATTR_USAGE_INPUT_TOKENS] = input_tokens
    if output_tokens is not None:
        attributes[ATTR_USAGE_OUTPUT_TOKENS] = output_tokens
    if finish_reason:
        attributes[ATTR_FINISH_REASONS] = (finish_reason,)
    if model_version:
        attributes[ATTR_RESPONSE_MODEL] = model_version
    span.set_attributes(attributes)


def capture_content() -> bool:
    """Whether the user opted in to recording prompt, response and tool bodies."""
    return os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() in ("1", "true", "yes")


def record_content(span: Span, key: str, value: Any) -> None:
    """Set ``key`` to ``value`` as JSON, only on a recording span and only when opted in.

    ``value`` may be a pydantic model or a list of them; nothing is
    serialized unless both conditions hold.
    """
    if not span.is_recording() or not capture_content():
        return
    span.set_attribute(key, json.dumps(_jsonable(value), default=str, ensure_ascii=False))


def _jsonable(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(mode="json", exclude_none=True)
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [_jsonable(item) for item in cast("Sequence[object]", value)]
    return value
