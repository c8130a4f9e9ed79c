"""The line to the OpenTelemetry API: whether it can record, and the no-op span until then.

Only ``opentelemetry-api`` is a dependency, and it is imported only when
needed: a tracer (meter) provider can be set only through
``opentelemetry.trace`` (``opentelemetry.metrics``) or named by
``OTEL_PYTHON_TRACER_PROVIDER`` (``..._METER_PROVIDER``). While neither is
so (a ``sys.modules`` lookup, asked again each run) nothing can record:
the span helpers return ``NO_SPAN`` and skip the import (about 10 ms).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Final, cast

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer

__all__ = [
    "NO_SPAN",
    "TRACER_NAME",
    "api_may_be_set",
    "noop_child",
    "noop_span",
    "tracer",
    "tracing_enabled",
]

TRACER_NAME = "steadyflow"


@cache
def _in_environment(name: str) -> bool:
    # Read once: OpenTelemetry's provider variables configure a process from its
    # start; reading os.environ costs about a microsecond, twice per invocation.
    return name in os.environ


def api_may_be_set(module: str, provider_env: str) -> bool:
    """Whether a provider of the OpenTelemetry API ``module`` may have been set.

    ``provider_env`` is read once per process: set it before the process
    starts, as OpenTelemetry's own configuration expects.
    """
    return module in sys.modules or _in_environment(provider_env)


_TRACE_API = "opentelemetry.trace"
_TRACER_PROVIDER_ENV = "OTEL_PYTHON_TRACER_PROVIDER"


@dataclass(frozen=True, slots=True)
class _InvalidSpanContext:
    """The span context of ``NO_SPAN``: the API's invalid context, by value."""

    trace_id: int = 0
    span_id: int = 0
    is_remote: bool = False
    is_valid: bool = False


_INVALID_CONTEXT: Final = _InvalidSpanContext()


class _NoSpan:
    """``INVALID_SPAN``'s stand-in while nothing has imported ``opentelemetry.trace``.

    No provider can record then, so it answers a span's calls as the API's
    invalid span would, without importing the API to get that span.
    """

    __slots__ = ()

    def get_span_context(self) -> _InvalidSpanContext:
        return _INVALID_CONTEXT

    def is_recording(self) -> bool:
        return False

    def _ignore(self, *args: object, **kwargs: object) -> None:
        """Everything that would record or end the span does nothing."""

    end = set_attribute = set_attributes = set_status = _ignore
    add_event = add_link = update_name = record_exception = _ignore


NO_SPAN: Final = cast("Span", _NoSpan())
_noop = NO_SPAN  # becomes the API's INVALID_SPAN once the API is loaded


def noop_span() -> Span:
    """What a helper returns when nothing can record: the API's ``INVALID_SPAN`` once loaded."""
    global _noop
    if _noop is NO_SPAN and (trace := sys.modules.get(_TRACE_API)) is not None:
        _noop = trace.INVALID_SPAN
    return _noop


@cache
def tracer() -> Tracer:
    """The steadyflow tracer, asked for once a real ``TracerProvider`` is installed."""
    import opentelemetry.trace as trace

    return trace.get_tracer(TRACER_NAME)


_sdk_seen = False


def tracing_enabled() -> bool:
    """False until a real ``TracerProvider`` (an SDK) is installed.

    Without one every span would be a no-op, so callers may skip building
    attributes; the current context is left untouched either way, so trace
    propagation through the API still works. While the API is not imported
    (and the environment names no provider) the answer is False without
    importing it. A positive answer is cached: OpenTelemetry lets the global
    provider be set only once.
    """
    global _sdk_seen
    if not _sdk_seen and (api_may_be_set(_TRACE_API, _TRACER_PROVIDER_ENV)):
        import opentelemetry.trace as trace

        provider = trace.get_tracer_provider()
        _sdk_seen = not isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider)
    return _sdk_seen


def noop_child(parent: Span | None) -> Span | None:
    """The no-op span a child of ``parent`` would be, or ``None`` if the child may record.

    Known before the child's name and attributes are built: a parent that is
    not a real span has only no-op children, and so has the current context
    while no SDK is installed.
    """
    if parent is NO_SPAN or parent is _noop:
        return parent  # the common case without an SDK: two identity checks
    if parent is None and not _sdk_seen and _TRACE_API not in sys.modules:
        # ``tracing_enabled()``'s first test, inline: no API, so no SDK (and no
        # ``INVALID_SPAN`` to hand out) unless the environment names a provider.
        if not _in_environment(_TRACER_PROVIDER_ENV):
            return _noop
    noop = noop_span()
    if parent is None:
        return None if tracing_enabled() else noop
    return None if parent.get_span_context().is_valid else noop
