"""Answering the tool calls a turn left running when it ended for good.

A turn that ends while its tools run (the caller cancelled the task, a
server's client closed the stream, an error in a sibling ended the batch)
is over: it is ``CANCELLED`` or ``FAILED``, never resumed. Left as it was,
its session would hold tool calls without results, and every provider
refuses a request whose history has an unanswered call: no later turn
could run. So when such a turn's record is closed, each call the journal
still holds is answered in one function-response event per call event
(the event's author and branch kept), stored in the same commit as the
closed record:

- a call whose result was journaled (a parallel sibling that finished)
  gets that result and its state writes;
- a call still running gets ``INTERRUPTED_RESPONSE``: its outcome is
  unknown, exactly as after a crash, so the model can check or ask.

A process going down (``INTERRUPTED``) is not answered here: its resume
does that, and may run an idempotent call again.
"""

from __future__ import annotations

from typing import Any

from ..events import Event, EventActions
from ..sessions.invocations import InvocationRecord
from ..types import Content, Part

__all__ = ["INTERRUPTED_RESPONSE", "answer_cut_short"]

INTERRUPTED_RESPONSE = {
    "error": (
        "interrupted: the run was stopped while this tool call was running, so its "
        "outcome is unknown (it may or may not have taken effect); check before "
        "calling it again, or ask the user"
    ),
    "outcome": "unknown",
}
"""What the model gets for a call whose run was cut short (a crash, a cancelled turn)."""

_CUT_SHORT_STATES = frozenset({"started", "done"})
"""Journal states of a call that began running and has no response event yet."""


def _answer(entry: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The response and state writes to store for one journal entry."""
    if entry.get("state") == "done":
        return dict(entry.get("response") or {}), dict(entry.get("state_delta") or {})
    return dict(INTERRUPTED_RESPONSE), {}


def answer_cut_short(events: list[Event], record: InvocationRecord) -> list[Event]:
    """The response events for ``record``'s calls cut short (see the module docstring).

    The answered entries leave the journal. Empty when no call was cut short.
    """
    journal = record.journal
    open_ids = {
        call_id for call_id, entry in journal.items() if entry.get("state") in _CUT_SHORT_STATES
    }
    if not open_ids:
        return []
    answers: list[Event] = []
    for event in events:
        if event.invocation_id != record.id:
            continue
        parts: list[Part] = []
        delta: dict[str, Any] = {}
        for call in event.get_function_calls():
            if call.id not in open_ids:
                continue
            response, writes = _answer(journal.pop(call.id))
            parts.append(Part.from_function_response(call.name, response, id=call.id))
            delta.update(writes)
        if parts:
            answer = Event(
                invocation_id=record.id,
                author=event.author,
                branch=event.branch,
                content=Content(role="user", parts=parts),
            )
            if delta:
                answer.actions = EventActions(state_delta=delta)
            answers.append(answer)
    return answers
