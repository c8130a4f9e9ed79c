"""The invocation record in Temporal mode: who owns it, its trace, how it closes.

A Temporal invocation's record names the task queue as its owner (host
``temporal:<queue>``, pid 0), so ``steadyflow invocations`` shows who runs
it and an in-process resumer leaves it alone while its lease holds (each
store write pushes the lease by ``TemporalSettings.lease_seconds``). The
trace grows one step per stored model event, so a running invocation's
record already shows what it did.
"""

from __future__ import annotations

import time
from typing import Any

from ...errors import NothingToResumeError
from ...sessions.base import BaseSessionService, Session
from ...sessions.invocations import InvocationOwner, InvocationRecord, InvocationStatus
from ...trace_record._schema import InvocationTrace
from .._resume import is_free
from ._payloads import FinishInput

__all__ = ["claim_for_temporal", "close_record", "temporal_owner", "with_step"]

_MESSAGE_LIMIT = 500


def temporal_owner(task_queue: str) -> InvocationOwner:
    """The owner a Temporal fleet's records carry: the task queue, not a process."""
    return InvocationOwner(f"temporal:{task_queue}", 0, 0.0)


async def claim_for_temporal(
    service: BaseSessionService,
    session: Session,
    record: InvocationRecord,
    task_queue: str,
    lease_seconds: float,
) -> InvocationRecord:
    """Take ``record`` for the fleet (a resume, or an in-process invocation moving over).

    Raises:
        NothingToResumeError: it is finished, waiting, or held by a live process.
        StaleInvocationError: another process took it first.
    """
    owner = temporal_owner(task_queue)
    now = time.time()
    if record.status.is_final:
        raise NothingToResumeError(f"invocation {record.id!r} is {record.status.value}")
    if record.owner != owner and not is_free(record, now):
        raise NothingToResumeError(
            f"invocation {record.id!r} is running in process {record.owner}; "
            "a live invocation is never taken over"
        )
    if record.owner != owner:
        record.resume_count += 1
    record.status, record.owner = InvocationStatus.RUNNING, owner
    record.lease_expires_at = now + lease_seconds
    record.ended_at = record.error_type = record.error_message = None
    await service.update_invocation(record)
    return record


def with_step(
    record: InvocationRecord, step: dict[str, Any] | None, tools: list[dict[str, Any]]
) -> None:
    """Add a model call's step, or a batch's tool records to the last step, to the trace."""
    if step is None and not tools:
        return
    trace = record.trace or InvocationTrace(invocation_id=record.id, started_at=record.started_at)
    data = trace.to_dict()
    steps: list[dict[str, Any]] = data.setdefault("steps", [])
    if step is not None:
        steps.append(step)
    elif steps:
        steps[-1].setdefault("tools", []).extend(tools)
    record.trace = InvocationTrace.from_dict(data)


def close_record(record: InvocationRecord, finish: FinishInput, *, now: float) -> None:
    """Close ``record`` in place: status, end, calls, error, the trace's totals; lease released."""
    failed = finish.error_type is not None
    record.status = InvocationStatus.FAILED if failed else InvocationStatus.COMPLETED
    record.ended_at = now
    record.llm_calls = finish.llm_calls
    record.lease_expires_at = None
    message = (finish.error_message or "")[:_MESSAGE_LIMIT]
    if failed:
        record.error_type, record.error_message = finish.error_type, message
    trace = record.trace or InvocationTrace(invocation_id=record.id, started_at=record.started_at)
    trace.invocation_id = record.id
    trace.status = "error" if failed else "ok"
    trace.error_type, trace.error_message = (finish.error_type, message) if failed else (None, None)
    trace.budget_used, trace.budget_limit = finish.llm_calls, record.max_llm_calls
    trace.duration = round(now - record.started_at, 6)
    trace.input_tokens = sum(s.input_tokens or 0 for s in trace.steps)
    trace.output_tokens = sum(s.output_tokens or 0 for s in trace.steps)
    record.trace = trace
