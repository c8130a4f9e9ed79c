"""OpenTelemetry metrics of model calls, on the metrics API alone.

The metrics API is imported lazily, like the tracing API in
``_spans``: a meter provider can only have been set through
``opentelemetry.metrics`` or named by ``OTEL_PYTHON_METER_PROVIDER``, so
while neither holds ``metrics_enabled()`` is False without the import. The
instruments are created once, on first record, on the global meter
provider (its proxy until an SDK ``MeterProvider`` is installed, to which
they then report). The invocation recorder skips every record while no SDK
is installed; attribute maps are built once per provider/model/error
combination and reused.

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
- ``steadyflow.llm.cost`` (counter, USD): what priced attempts cost
  (``steadyflow.usage``), failed ones included.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import cache, lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING

from ._api import api_may_be_set
from ._spans import (
    ATTR_AGENT_NAME,
    ATTR_ERROR_TYPE,
    ATTR_OPERATION_NAME,
    ATTR_PROVIDER_NAME,
    ATTR_REQUEST_MODEL,
    ATTR_TOKEN_TYPE,
    TRACER_NAME,
)

if TYPE_CHECKING:
    from opentelemetry.metrics import Counter, Histogram
    from opentelemetry.util.types import Attributes

__all__ = [
    "ATTR_FROM_RETRY_AFTER",
    "metrics_enabled",
    "record_budget_exhausted",
    "record_cost",
    "record_failed_attempt",
    "record_failed_call",
    "record_success",
]

ATTR_FROM_RETRY_AFTER = "steadyflow.llm.retry.from_retry_after"

_METRICS_API = "opentelemetry.metrics"
_METER_PROVIDER_ENV = "OTEL_PYTHON_METER_PROVIDER"
_NO_SDK = ("_ProxyMeterProvider", "NoOpMeterProvider")
_sdk_seen = False


def metrics_enabled() -> bool:
    """False until a real ``MeterProvider`` (an SDK) is installed; then cached True.

    The invocation recorder asks once per invocation and skips the records
    below while it is False (asking costs about a microsecond: the API, or
    this check while the API is not imported, reads the environment).
    """
    global _sdk_seen
    if not _sdk_seen and api_may_be_set(_METRICS_API, _METER_PROVIDER_ENV):
        import opentelemetry.metrics as metrics

        _sdk_seen = type(metrics.get_meter_provider()).__name__ not in _NO_SDK
    return _sdk_seen


@dataclass(frozen=True, slots=True)
class _Instruments:
    """The instruments above, created together on the first record."""

    attempts: Counter
    retries: Counter
    retry_delay: Histogram
    duration: Histogram
    tokens: Histogram
    exhaustions: Counter
    cost: Counter


@cache
def _instruments() -> _Instruments:
    """Create the instruments on the global meter provider (this imports the API)."""
    import opentelemetry.metrics as metrics

    meter = metrics.get_meter(TRACER_NAME)
    return _Instruments(
        attempts=meter.create_counter(
            "steadyflow.llm.attempts", unit="{attempt}", description="Provider attempts."
        ),
        retries=meter.create_counter(
            "steadyflow.llm.retries", unit="{retry}", description="Retries after failed attempts."
        ),
        retry_delay=meter.create_histogram(
            "steadyflow.llm.retry.delay", unit="s", description="Waits before retries."
        ),
        duration=meter.create_histogram(
            "gen_ai.client.operation.duration",
            unit="s",
            description="Logical model call duration.",
        ),
        tokens=meter.create_histogram(
            "gen_ai.client.token.usage", unit="{token}", description="Tokens used per model call."
        ),
        exhaustions=meter.create_counter(
            "steadyflow.llm.budget.exhaustions",
            unit="{invocation}",
            description="Invocations stopped by max_llm_calls.",
        ),
        cost=meter.create_counter(
            "steadyflow.llm.cost", unit="USD", description="US dollars of provider attempts."
        ),
    )


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
    instruments = _instruments()
    failed = _attributes(provider, model, (ATTR_ERROR_TYPE, error_type))
    instruments.attempts.add(1, failed)
    if retry_delay is not None:
        instruments.retries.add(1, failed)
        waited = _attributes(
            provider,
            model,
            (ATTR_ERROR_TYPE, error_type),
            (ATTR_FROM_RETRY_AFTER, from_retry_after),
        )
        instruments.retry_delay.record(retry_delay, waited)


def record_failed_call(provider: str, model: str, seconds: float, error_type: str) -> None:
    """Record the duration of a logical call the policy gave up on."""
    failed = _attributes(provider, model, (ATTR_ERROR_TYPE, error_type))
    _instruments().duration.record(seconds, failed)


def record_success(
    provider: str,
    model: str,
    seconds: float,
    input_tokens: int | None,
    output_tokens: int | None,
) -> None:
    """Count the successful attempt; record the call's duration and token usage."""
    instruments, base = _instruments(), _attributes(provider, model)
    instruments.attempts.add(1, base)
    instruments.duration.record(seconds, base)
    if input_tokens is not None:
        by_type = _attributes(provider, model, (ATTR_TOKEN_TYPE, "input"))
        instruments.tokens.record(input_tokens, by_type)
    if output_tokens is not None:
        by_type = _attributes(provider, model, (ATTR_TOKEN_TYPE, "output"))
        instruments.tokens.record(output_tokens, by_type)


def record_cost(provider: str, model: str, cost: Decimal) -> None:
    """Add one attempt's cost (US dollars) to the cost counter."""
    _instruments().cost.add(float(cost), _attributes(provider, model))


def record_budget_exhausted(agent_name: str) -> None:
    """Count one invocation stopped by its ``max_llm_calls`` budget."""
    _instruments().exhaustions.add(1, {ATTR_AGENT_NAME: agent_name})
