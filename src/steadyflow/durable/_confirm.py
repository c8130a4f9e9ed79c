"""Waiting for a person: pausing an invocation on a confirmation, and taking the answer.

The pause is stored, not held: when tool dispatch yields a pause event
(``steadyflow._confirmation``), the record keeper stores it with each
paused call's journal entry set to ``waiting`` (the request id, hint and
payload) in the same commit, and closes the record ``WAITING``, its lease
released. Nothing in memory is needed to continue, so the process may exit.

An answer (``Runner.run_async`` with a message of confirmation responses)
is checked against the session's records before anything is written: each
request id must name a ``waiting`` entry of a ``WAITING`` invocation, all
of one invocation. The answers then become ``answered`` entries, and the
answer event is appended with the record in one commit, conditional on the
record's revision (of two processes answering at once, one wins, the other
gets ``StaleInvocationError``). Once no entry waits, that same commit takes
the invocation (``RUNNING``, this process as owner, resumed once more) and
the runner continues it from its stored events: the paused batch's calls
run again through tool dispatch, which finds its siblings' results in the
journal and each answered call's answer beside it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from .._confirmation import ToolConfirmation, confirmation_requests
from .._json import is_object
from ..errors import ConfirmationError
from ..events import Event
from ..sessions.base import BaseSessionService, Session
from ..sessions.invocations import InvocationRecord, InvocationStatus
from ..types import Content
from ._records import current_owner

__all__ = [
    "ANSWERED",
    "WAITING",
    "Taker",
    "answers_taker",
    "check_answers",
    "mark_waiting",
    "settle_waiting",
    "take_answers",
    "waiting_requests",
    "waits_for_a_person",
]

WAITING, ANSWERED = "waiting", "answered"
"""Journal states of a paused call: waiting for its answer, answered (not yet run)."""

Taker = Callable[[Session], Awaitable[tuple[InvocationRecord, bool] | None]]
"""Takes the invocation a continuation runs (None: nothing to run now); see ``Runner``.

With the record comes whether a model call may have been in flight without
being counted: True only for a record its process never closed (killed), whose
stored ``llm_calls`` is that of its last write.
"""


def mark_waiting(journal: dict[str, Any], event: Event) -> bool:
    """Set the calls ``event`` pauses (if it is a pause event) to ``waiting``; True if any."""
    requests = confirmation_requests(event)
    for request in requests:
        if request.call.id:
            journal[request.call.id] = {
                "state": WAITING,
                "request": request.id,
                "hint": request.hint,
                "payload": request.payload,
            }
    return bool(requests)


def settle_waiting(record: InvocationRecord, error: BaseException | None) -> None:
    """A record that stored a pause closes ``WAITING`` (unless a real error ended it)."""
    stopped = (GeneratorExit, asyncio.CancelledError, KeyboardInterrupt, SystemExit)
    if error is not None and not isinstance(error, stopped):
        return  # FAILED, as finish_record set it
    record.status = InvocationStatus.WAITING
    record.ended_at = None
    record.owner = None  # nobody runs it until the answer comes
    record.error_type = record.error_message = None


def _waiting(record: InvocationRecord) -> dict[str, str]:
    """The record's waiting requests: request id -> paused call id."""
    found: dict[str, str] = {}
    for call_id, entry in record.journal.items():
        if is_object(entry) and entry.get("state") == WAITING:
            found[str(entry.get("request"))] = call_id
    return found


def waiting_requests(record: InvocationRecord) -> list[str]:
    """The ids of ``record``'s confirmation requests that still wait for an answer."""
    return list(_waiting(record))


def waits_for_a_person(record: InvocationRecord) -> bool:
    """Whether a pause of ``record`` is stored and still waits for an answer."""
    return bool(_waiting(record))


def _refusal(session: Session, records: list[InvocationRecord], request_id: str) -> str:
    """Why ``request_id`` cannot be answered, for the error message."""
    for event in session.events:
        if any(r.id == request_id for r in confirmation_requests(event)):
            record = next((r for r in records if r.id == event.invocation_id), None)
            if record is not None and record.status is InvocationStatus.WAITING:
                reason = "it was already answered"
            else:
                status = "unknown" if record is None else record.status.value
                reason = f"its invocation {event.invocation_id!r} is {status}, not waiting"
            return f"confirmation request {request_id!r} cannot be answered: {reason}"
    return f"session {session.id!r} has no confirmation request {request_id!r}"


def check_answers(
    session: Session, records: list[InvocationRecord], answers: dict[str, ToolConfirmation]
) -> InvocationRecord:
    """The waiting invocation ``answers`` answer (see the module docstring).

    Raises:
        ConfirmationError: an id that names no waiting request, or answers
            for more than one invocation.
    """
    owners: dict[str, InvocationRecord] = {}
    for request_id in answers:
        record = next(
            (
                r
                for r in records
                if r.status is InvocationStatus.WAITING and request_id in _waiting(r)
            ),
            None,
        )
        if record is None:
            raise ConfirmationError(_refusal(session, records, request_id))
        owners[record.id] = record
    if len(owners) > 1:
        raise ConfirmationError(
            f"the answers are for several invocations ({', '.join(sorted(owners))}); "
            "answer one invocation per message"
        )
    return next(iter(owners.values()))


async def take_answers(
    service: BaseSessionService,
    session: Session,
    message: Content,
    answers: dict[str, ToolConfirmation],
    *,
    now: float,
    lease_seconds: float,
) -> tuple[InvocationRecord, bool]:
    """Store the answers with their event; the record, and whether it runs on now.

    Raises:
        ConfirmationError: see ``check_answers`` (nothing was stored).
        StaleInvocationError: another process answered or took it first.
    """
    records = await service.list_invocations(
        app_name=session.app_name, user_id=session.user_id, session_id=session.id
    )
    record = check_answers(session, records, answers)
    waiting = _waiting(record)
    for request_id, confirmation in answers.items():
        call_id = waiting[request_id]
        entry = record.journal[call_id]
        record.journal[call_id] = {
            "state": ANSWERED,
            "request": request_id,
            "hint": entry.get("hint", ""),
            "answer": {"confirmed": confirmation.confirmed, "payload": confirmation.payload},
        }
    ready = not _waiting(record)
    if ready:
        record.status, record.owner = InvocationStatus.RUNNING, current_owner()
        record.lease_expires_at = now + lease_seconds
        record.resume_count += 1
    event = Event(invocation_id=record.id, author="user", content=message)
    await service.append_event_and_record(session, event, record)
    return record, ready


def answers_taker(
    service: BaseSessionService,
    message: Content,
    answers: dict[str, ToolConfirmation],
    lease_seconds: float,
) -> Taker:
    """``take_answers`` for the runner: the record once no request waits, else None."""

    async def take(session: Session) -> tuple[InvocationRecord, bool] | None:
        record, ready = await take_answers(
            service, session, message, answers, now=time.time(), lease_seconds=lease_seconds
        )
        return (record, False) if ready else None

    return take
