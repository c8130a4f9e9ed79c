"""An invocation's retry settings across the wire, and the worker's shared parts kept.

``RunConfig.retry_config`` is per invocation, as in-process: its plain
settings (attempts, backoff, statuses, timeouts) travel with the workflow
and the model-call activity applies them over the worker's own config. The
objects a config may share between calls (a retry budget, a circuit
breaker, a pacer) are process-wide, so they stay the worker's: a runner
that passes one gets a ``ConfigurationError`` naming it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...errors import ConfigurationError
from ...retry import RetryConfig

__all__ = ["retry_from_wire", "retry_to_wire"]

_SHARED = ("budget", "circuit_breaker", "pacer")


def retry_to_wire(config: RetryConfig) -> dict[str, Any] | None:
    """``config``'s plain settings as JSON values; None for the default (the worker's applies).

    Raises:
        ConfigurationError: ``config`` holds a shared object (budget, breaker, pacer).
    """
    for name in _SHARED:
        if getattr(config, name) is not None:
            raise ConfigurationError(
                f"RetryConfig.{name} is shared by the calls of one process: in Temporal mode "
                "give it to the worker (create_worker(run_config=...)), not to the runner"
            )
    if config == RetryConfig():
        return None
    values = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    for name in _SHARED:
        del values[name]
    values["retryable_status_codes"] = sorted(values["retryable_status_codes"])
    return values


def retry_from_wire(base: RetryConfig, wire: dict[str, Any] | None) -> RetryConfig:
    """``base`` (the worker's config) with an invocation's plain settings over it."""
    if wire is None:
        return base
    return dataclasses.replace(base, **wire)
