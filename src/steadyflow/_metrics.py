"""OpenTelemetry metrics of model calls, on the metrics API alone.

The instruments are created once, on the global meter provider's proxy, so
they report to an SDK ``MeterProvider`` installed later. Until one is
installed every record returns at once; attribute maps are built once per
provider/model/error combination and reused.

Instruments (attributes: ``gen_ai.provider.name``, ``gen_ai.request.model``,
plus the ones listed):

- ``steadyflow.llm.attempts`` (counter): provider attempts; ``error.type``
  on failed ones.
- ``steadyflow.llm.retries`` (counter): retries, by ``error.type``.
- ``steadyflow.llm.retry.delay`` (histogram, s): waits before retries;
  ``steadyflow.llm.retry.from_retry_after`` says whether the provider's
  Retry-After hint set the wait.
- ``gen_ai.client.operation.duration`` (histogram, s): logical model calls,
  first attempt to complete response (waits included); ``error.type`` on
  failed calls.
- ``gen_ai.client.token.usage`` (histogram, tokens): by
  ``gen_ai.token.type`` (``input`` / ``output``).
- ``steadyflow.llm.budget.exhaustions`` (counter): invocations stopped by
  ``max_llm_calls``, by ``gen_ai.agent.name``.
"""

from __future__ import annotations

from functools import lru_cache
from types import MappingProxyType

from opentelemetry import metrics
from opentelemetry.util.types import Attributes

from .telemetry import (
    ATTR_AGENT_NAME,
    ATTR_ERROR_TYPE,
    ATTR_OPERATION_NAME,
    ATTR_PROVIDER_NAME,
    ATTR_REQUEST_MODEL,
    ATTR_TOKEN_TYPE,
    TRACER_NAME,
)

__all__ = [
    "ATTR_FROM_RETRY_AFTER",
    "metrics_enabled",
    "record_budget_exhausted",
    "record_failed_attempt",
    "record_failed_call",
    "record_success",
]

ATTR_FROM_RETRY_AFTER = "steadyflow.llm.retry.from_retry_after"

_meter = metrics.get_meter(TRACER_NAME)
_attempts = _meter.create_counter(
    "steadyflow.llm.attempts", unit="{attempt}", description="Provider attempts."
)
_retries = _meter.create_counter(
    "steadyflow.llm.retries", unit="{retry}", description="Retries after failed attempts."
)
_retry_delay = _meter.create_histogram(
    "steadyflow.llm.retry.delay", unit="s", description="Waits before retries."
)
_duration = _meter.create_histogram(
    "gen_ai.client.operation.duration", unit="s", description="Logical model call duration."
)
_tokens = _meter.create_histogram(
    "gen_ai.client.token.usage", unit="{token}", description="Tokens used per model call."
)
_exhaustions = _meter.create_counter(
    "steadyflow.llm.budget.exhaustions",
    unit="{invocation}",
    description="Invocations stopped by max_llm_calls.",
)

_NO_SDK = ("_ProxyMeterProvider", "NoOpMeterProvider")
_sdk_seen = False


def metrics_enabled() -> bool:
    """False until a real ``MeterProvider`` (an SDK) is installed; then cached True.

    The invocation recorder asks once per invocation and skips the records
    below while it is False (asking costs about a microsecond: the API reads
    the environment).
    """
    global _sdk_seen
    if not _sdk_seen:
        _sdk_seen = type(metrics.get_meter_provider()).__name__ not in _NO_SDK
    return _sdk_seen


@lru_cache(maxsize=4096)
def _attributes(provider: str, model: str, *extra: tuple[str, str | bool]) -> Attributes:
    """Attribute maps, built once per combination (instruments never mutate them)."""
    built: dict[str, str | bool] = {
        ATTR_OPERATION_NAME: "chat",
        ATTR_PROVIDER_NAME: provider,
        ATTR_REQUEST_MODEL: model,
    }
    built.update(extra)
    return MappingProxyType(built)


def record_failed_attempt(
    provider: str, model: str, error_type: str, retry_delay: float | None, from_retry_after: bool
) -> None:
    """Count a failed attempt and, when a retry follows (``retry_delay`` set), the retry."""
    failed = _attributes(provider, model, (ATTR_ERROR_TYPE, error_type))
    _attempts.add(1, failed)
    if retry_delay is not None:
        _retries.add(1, failed)
        waited = _attributes(
            provider,
            model,
            (ATTR_ERROR_TYPE, error_type),
            (ATTR_FROM_RETRY_AFTER, from_retry_after),
        )
        _retry_delay.record(retry_delay, waited)


def record_failed_call(provider: str, model: str, seconds: float, error_type: str) -> None:
    """Record the duration of a logical call the policy gave up on."""
    _duration.record(seconds, _attributes(provider, model, (ATTR_ERROR_TYPE, error_type)))


def record_success(
    provider: str,
    model: str,
    seconds: float,
    input_tokens: int | None,
    output_tokens: int | None,
) -> None:
    """Count the successful attempt; record the call's duration and token usage."""
    base = _attributes(provider, model)
    _attempts.add(1, base)
    _duration.record(seconds, base)
    if input_tokens is not None:
        _tokens.record(input_tokens, _attributes(provider, model, (ATTR_TOKEN_TYPE, "input")))
    if output_tokens is not None:
        _tokens.record(output_tokens, _attributes(provider, model, (ATTR_TOKEN_TYPE, "output")))


def record_budget_exhausted(agent_name: str) -> None:
    """Count one invocation stopped by its ``max_llm_calls`` budget."""
    _exhaustions.add(1, {ATTR_AGENT_NAME: agent_name})
