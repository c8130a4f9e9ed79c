"""OpenTelemetry spans for steadyflow, written against the API alone.

Only ``opentelemetry-api`` is a dependency. With no SDK configured the API
hands out non-recording spans; the helpers below skip all attribute work for
those and never build a context for an invalid span, so tracing costs close
to nothing until a user installs a ``TracerProvider``.

Spans are started *without* becoming current: the model call runs inside an
async generator that yields to the flow between chunks, and a context
attached across a ``yield`` would leak into (and be detached from) the
caller's context. ``activate(span)`` makes a span current only around code
that does not yield, such as one await on the provider.

Span names and attributes (GenAI semantic conventions where they exist):

- ``call_llm {model}``: one logical model call; ``gen_ai.operation.name``,
  ``gen_ai.provider.name``, ``gen_ai.request.model``, ``gen_ai.agent.name``,
  and on end ``steadyflow.llm.attempts``.
- ``llm_attempt``: one provider attempt, a child of the call span;
  ``steadyflow.llm.attempt`` (1 = first), ``steadyflow.llm.retry.delay_ms``
  (the wait before this attempt, 0 for the first), ``error.type`` on failure.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import (
    INVALID_SPAN,
    NoOpTracerProvider,
    ProxyTracerProvider,
    Span,
    SpanKind,
    Status,
    StatusCode,
)
from opentelemetry.util.types import AttributeValue

__all__ = [
    "ATTR_AGENT_NAME",
    "ATTR_ERROR_TYPE",
    "ATTR_LLM_ATTEMPT",
    "ATTR_LLM_ATTEMPTS",
    "ATTR_LLM_RETRY_DELAY_MS",
    "ATTR_OPERATION_NAME",
    "ATTR_PROVIDER_NAME",
    "ATTR_REQUEST_MODEL",
    "TRACER_NAME",
    "activate",
    "record_error",
    "start_llm_attempt_span",
    "start_llm_call_span",
    "start_span",
    "tracing_enabled",
]

TRACER_NAME = "steadyflow"

ATTR_OPERATION_NAME = "gen_ai.operation.name"
ATTR_PROVIDER_NAME = "gen_ai.provider.name"
ATTR_REQUEST_MODEL = "gen_ai.request.model"
ATTR_AGENT_NAME = "gen_ai.agent.name"
ATTR_ERROR_TYPE = "error.type"
ATTR_LLM_ATTEMPT = "steadyflow.llm.attempt"
ATTR_LLM_ATTEMPTS = "steadyflow.llm.attempts"
ATTR_LLM_RETRY_DELAY_MS = "steadyflow.llm.retry.delay_ms"

# A ProxyTracer: it resolves to the SDK's tracer once a provider is installed.
_tracer = trace.get_tracer(TRACER_NAME)


_sdk_seen = False


def tracing_enabled() -> bool:
    """False until a real ``TracerProvider`` (an SDK) is installed.

    Without one every span would be a no-op, so callers may skip building
    attributes; the current context is left untouched either way, so trace
    propagation through the API still works. A positive answer is cached:
    OpenTelemetry lets the global provider be set only once.
    """
    global _sdk_seen
    if not _sdk_seen:
        provider = trace.get_tracer_provider()
        _sdk_seen = not isinstance(provider, ProxyTracerProvider | NoOpTracerProvider)
    return _sdk_seen


def start_span(
    name: str,
    *,
    parent: Span | None = None,
    kind: SpanKind = SpanKind.INTERNAL,
    attributes: Mapping[str, AttributeValue] | None = None,
) -> Span:
    """Start (but do not activate) a span; the caller must ``end()`` it.

    Args:
        name: the span name.
        parent: the parent span; ``None`` uses the current context. A parent
            that is not a real span (no SDK) yields a no-op span at once.
        kind: the OpenTelemetry span kind.
        attributes: attributes known at start (samplers can see them).
    """
    if parent is None:
        if not tracing_enabled():
            return INVALID_SPAN
        return _tracer.start_span(name, kind=kind, attributes=attributes)
    if not parent.get_span_context().is_valid:
        return INVALID_SPAN
    context = trace.set_span_in_context(parent)
    return _tracer.start_span(name, context=context, kind=kind, attributes=attributes)


@contextmanager
def activate(span: Span) -> Iterator[None]:
    """Make ``span`` current for the body; a no-op for invalid (no-SDK) spans.

    Use it only around code that does not yield out of a generator.
    """
    if not span.get_span_context().is_valid:
        yield
        return
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
    span.set_attribute(ATTR_ERROR_TYPE, type(error).__qualname__)
    span.set_status(Status(StatusCode.ERROR, f"{type(error).__qualname__}: {error}"))
    if exception_event:
        span.record_exception(error)


def start_llm_call_span(*, model: str, provider: str, agent_name: str) -> Span:
    """Start the ``call_llm {model}`` span of one logical model call."""
    return start_span(
        f"call_llm {model}",
        kind=SpanKind.CLIENT,
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
    return start_span(
        "llm_attempt",
        parent=call_span,
        attributes={
            ATTR_LLM_ATTEMPT: attempt,
            ATTR_LLM_RETRY_DELAY_MS: round(delay * 1000.0, 3),
        },
    )
