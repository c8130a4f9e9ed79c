"""``TemporalSettings``: the timeouts and attempt limits of the Temporal mode, in one place.

The worker, the runner and the workflow read the same object (the workflow
gets it as part of its input, so a changed setting applies to invocations
started after the change, never to running ones half-way).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from pydantic import BaseModel, ConfigDict

from ...errors import ConfigurationError

__all__ = ["DEFAULT_TASK_QUEUE", "TemporalSettings", "TimeoutSettings"]

DEFAULT_TASK_QUEUE = "steadyflow"
"""The task queue workers and runners use unless told otherwise."""


class TimeoutSettings(BaseModel):
    """The activity options a workflow uses (seconds), sent with each invocation.

    Attributes:
        model_call_timeout: one logical model call, steadyflow's retries and
            their waits included (Temporal's start-to-close timeout).
        tool_timeout: one tool call.
        store_timeout: one session-store write (an append, the record's close).
        heartbeat_timeout: a worker that has not heartbeated for this long is
            lost: its model call (and an idempotent tool) runs again on
            another worker; a non-idempotent tool gets the interrupted response.
        worker_loss_attempts: how many times an activity may start in all,
            counting re-runs after lost workers (for model calls, idempotent
            tools and store writes; a non-idempotent tool starts once).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model_call_timeout: float = 600.0
    tool_timeout: float = 300.0
    store_timeout: float = 30.0
    heartbeat_timeout: float = 10.0
    worker_loss_attempts: int = 5


@dataclass(frozen=True, kw_only=True)
class TemporalSettings:
    """Settings of the Temporal mode; every duration in seconds.

    Attributes:
        task_queue: the queue workflows and activities are sent to.
        namespace: the Temporal namespace.
        model_call_timeout: see ``TimeoutSettings``.
        tool_timeout: see ``TimeoutSettings``.
        store_timeout: see ``TimeoutSettings``.
        heartbeat_timeout: see ``TimeoutSettings``.
        worker_loss_attempts: see ``TimeoutSettings``.
        lease_seconds: how far each store write pushes the invocation
            record's lease. An in-process ``steadyflow resume --all-expired``
            takes over an invocation only after no Temporal worker wrote it
            for this long (default one hour).

    Raises:
        ConfigurationError: a duration that is not a positive finite number,
            or fewer than one attempt.
    """

    task_queue: str = DEFAULT_TASK_QUEUE
    namespace: str = "default"
    model_call_timeout: float = 600.0
    tool_timeout: float = 300.0
    store_timeout: float = 30.0
    heartbeat_timeout: float = 10.0
    worker_loss_attempts: int = 5
    lease_seconds: float = 3600.0

    def __post_init__(self) -> None:
        if not self.task_queue:
            raise ConfigurationError("task_queue must not be empty")
        for item in fields(self):
            value = getattr(self, item.name)
            if item.name in ("task_queue", "namespace"):
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigurationError(f"{item.name} must be a number, got {value!r}")
            if not (math.isfinite(value) and value > 0):
                raise ConfigurationError(f"{item.name} must be > 0 and finite, got {value!r}")
        if not isinstance(self.worker_loss_attempts, int):
            raise ConfigurationError(
                f"worker_loss_attempts must be an int, got {self.worker_loss_attempts!r}"
            )

    def timeouts(self) -> TimeoutSettings:
        """The part of the settings the workflow needs."""
        return TimeoutSettings(
            model_call_timeout=self.model_call_timeout,
            tool_timeout=self.tool_timeout,
            store_timeout=self.store_timeout,
            heartbeat_timeout=self.heartbeat_timeout,
            worker_loss_attempts=self.worker_loss_attempts,
        )
