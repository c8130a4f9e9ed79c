"""A plain message while confirmation requests wait: supersede them, or refuse the message.

A paused invocation (``_confirm``) holds tool calls that have no result
yet. A new message that is not an answer cannot simply be appended after
them: every provider refuses a call without its result. So before the new
message's invocation starts, the runner settles what waits
(``settle_pending``), as ``RunConfig.on_pending_confirmation`` says:

- ``"supersede"`` (the default): for each paused batch, one function
  response event is stored, authored like the pause, answering the calls
  of the batch: a sibling that finished gets its journaled result, each
  waiting (or answered but not yet run) call a declined response with the
  reason "superseded by a new message" (a long-running sibling still out
  gets none: its result may come later, and until then the request builder
  tells the model it is pending). In the same commit as those answers, the
  waiting invocation's record closes ``SUPERSEDED`` (final; its journal
  cleared). The model then reads, in the new invocation, that the waiting
  calls did not run. If another process answers or supersedes the same
  invocation at the same moment, the conditional write refuses one of them
  (``StaleInvocationError``) and nothing of that one is stored.
- ``"raise"``: ``ConfirmationPendingError``, before anything is stored.

Whether a session may hold a waiting pause is read from its events first
(``may_be_waiting``), so a turn of a session with no pause in its latest
turn costs no extra read of the invocation records.
"""

from __future__ import annotations

from typing import Any

from .._confirmation import confirmation_requests, is_confirmation_event, superseded_response
from .._json import is_object
from ..errors import ConfirmationPendingError
from ..events import Event, EventActions
from ..sessions.base import BaseSessionService, Session
from ..sessions.invocations import InvocationRecord, InvocationStatus
from ..types import Content, FunctionCall, Part
from ._confirm import ANSWERED, WAITING, waiting_requests
from ._keeper import DONE

__all__ = ["may_be_waiting", "settle_pending"]


def may_be_waiting(session: Session) -> bool:
    """Whether a pause event comes after the session's latest plain user message."""
    for event in reversed(session.events):
        if event.long_running_tool_ids and confirmation_requests(event):
            return True
        if event.author == "user" and not is_confirmation_event(event):
            return False  # anything paused before it was settled when it came
    return False


async def settle_pending(
    service: BaseSessionService, session: Session, *, on_pending: str, now: float
) -> list[InvocationRecord]:
    """Supersede the session's waiting invocations, or refuse (see the module docstring).

    Returns the records it closed ``SUPERSEDED`` (none when nothing waited).

    Raises:
        ConfirmationPendingError: something waits and ``on_pending`` is ``"raise"``.
        StaleInvocationError: another process answered or took one first.
    """
    records = await service.list_invocations(
        app_name=session.app_name, user_id=session.user_id, session_id=session.id
    )
    waiting = [r for r in records if r.status is InvocationStatus.WAITING and waiting_requests(r)]
    if not waiting:
        return []
    if on_pending == "raise":
        raise ConfirmationPendingError(
            session.id,
            [r.id for r in waiting],
            [request for r in waiting for request in waiting_requests(r)],
        )
    for record in waiting:
        await _supersede(service, session, record, now)
    return waiting


async def _supersede(
    service: BaseSessionService, session: Session, record: InvocationRecord, now: float
) -> None:
    """Close ``record`` ``SUPERSEDED``, stored with each paused batch's answers."""
    answers = [
        event
        for pause in _pauses(session, record.id)
        if (event := _answers(session, record, pause)) is not None
    ]
    record.status = InvocationStatus.SUPERSEDED
    record.ended_at = now
    record.owner = record.lease_expires_at = None
    record.journal = {}
    if not answers:  # nothing of the pause is in the session: close the record alone
        await service.update_invocation(record)
    for event in answers:
        await service.append_event_and_record(session, event, record)


def _pauses(session: Session, invocation_id: str) -> list[Event]:
    return [
        event
        for event in session.events
        if event.invocation_id == invocation_id
        and event.long_running_tool_ids
        and confirmation_requests(event)
    ]


def _batch_calls(session: Session, pause: Event) -> list[FunctionCall]:
    """The calls of the model event whose batch ``pause`` paused."""
    paused = {r.call.id for r in confirmation_requests(pause)}
    for event in reversed(session.events):
        if event.invocation_id != pause.invocation_id or is_confirmation_event(event):
            continue
        calls = event.get_function_calls()
        if any(call.id in paused for call in calls):
            return calls
    return [r.call for r in confirmation_requests(pause)]


def _answers(session: Session, record: InvocationRecord, pause: Event) -> Event | None:
    """The function response event that answers ``pause``'s batch."""
    journal = record.journal
    parts: list[Part] = []
    writes: dict[str, Any] = {}
    for call in _batch_calls(session, pause):
        entry = journal.get(call.id or "")
        if not is_object(entry):
            continue  # not paused and not journaled: the request builder says it is lost
        state = entry.get("state")
        response: dict[str, Any]
        if state == DONE and is_object(entry.get("response")):
            response = entry["response"]
            delta = entry.get("state_delta")
            if is_object(delta):
                writes.update(delta)
        elif state in (WAITING, ANSWERED):
            response = superseded_response(call)
        else:  # a long-running call still out: the request builder says it is pending
            continue
        parts.append(Part.from_function_response(call.name, response, id=call.id))
    if not parts:
        return None
    event = Event(
        invocation_id=record.id,
        author=pause.author,
        content=Content(role="user", parts=parts),
        branch=pause.branch,
    )
    if writes:
        event.actions = EventActions(state_delta=writes)
    return event
