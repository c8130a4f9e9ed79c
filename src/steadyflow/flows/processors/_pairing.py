"""The one repair point: every call in a request has exactly one result, right after it.

Every provider refuses a request where a tool call has no result, where a
result answers no call of the turn just before it, or (Anthropic) where
results do not lead their message. Whatever the session holds (a paused
confirmation, a cancelled or crashed turn, a long-running tool still out, a
hand-edited store, a history window that cut a call away), the request
built from it keeps this invariant, for every provider:

- each call (by id) of a model turn is followed, in the next content, by
  exactly one response: its latest one in the session (a long-running
  tool's late result replaces its "pending" status; earlier responses to
  the same call are dropped);
- a call with no response at all gets one synthesized here that says why
  (``unanswered_response``): still pending (a long-running tool), waiting
  for a person's confirmation, or lost (its turn was interrupted, cancelled
  or crashed before the result was stored; it may or may not have run);
- a response whose call is not in the request (an orphan) becomes a user
  text saying what the tool returned, so the model keeps the fact and no
  provider refuses it;
- a second call with an id already used is dropped (providers refuse
  duplicate ids);
- when the newest content is a late response, everything between its call
  and it (intermediate responses, text) is left out of the request, so the
  model answers the result it is waiting for (as ADK does).

Producers of history (tool dispatch, the durable layer, supersession of a
pending confirmation) store real results wherever they can; this module is
the net under them. The session keeps every event; only the request is
rearranged. Calls without an id are left as they are (the flow gives every
call an id before it is stored).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ...types import Content, FunctionCall, Part

__all__ = [
    "Unanswered",
    "is_paired_after",
    "makes_calls",
    "needs_repair",
    "repair",
    "unanswered_response",
]


class Unanswered(enum.Enum):
    """Why a call in the history has no response."""

    LOST = "lost"
    PENDING = "pending"
    AWAITING_CONFIRMATION = "awaiting_confirmation"


_REASONS = {
    Unanswered.LOST: (
        "no result: the turn that made this call was interrupted, cancelled or crashed "
        "before its result was stored, so its outcome is unknown (it may or may not have "
        "taken effect); check before calling it again, or ask the user"
    ),
    Unanswered.PENDING: "pending: this long-running call has not returned its result yet",
    Unanswered.AWAITING_CONFIRMATION: (
        "not run: this call is waiting for a person's confirmation, which was not given"
    ),
}
_OUTCOMES = {
    Unanswered.LOST: "unknown",
    Unanswered.PENDING: "pending",
    Unanswered.AWAITING_CONFIRMATION: "not_run",
}


def unanswered_response(call: FunctionCall, why: Unanswered) -> Part:
    """The response the model reads for ``call``, which has none, and why."""
    response: dict[str, Any] = {"error": _REASONS[why], "outcome": _OUTCOMES[why]}
    return Part.from_function_response(call.name, response, id=call.id)


def is_paired_after(previous: Content | None, content: Content) -> bool:
    """Whether ``content`` may follow ``previous`` as it is.

    True when ``previous`` made no call (with an id) and ``content`` holds no
    response, or when ``content`` opens with exactly one response to each of
    ``previous``'s calls and holds no other response.
    """
    # Loops, no comprehension frames: asked of every content of every request.
    expected: set[str] = set()
    if previous is not None and previous.role == "model":
        for part in previous.parts:
            call = part.function_call
            if call is not None and call.id:
                expected.add(call.id)
    leading = True
    for part in content.parts:
        response = part.function_response
        if response is None or not response.id:
            if part.function_call is not None and content.role != "model":
                return False  # a call outside a model turn
            leading = False
            continue
        if not leading or response.id not in expected:
            return False
        expected.discard(response.id)
    return not expected


def needs_repair(contents: Sequence[Content]) -> bool:
    """Whether some call or response breaks the invariant (see the module)."""
    previous: Content | None = None
    for content in contents:
        if not is_paired_after(previous, content):
            return True
        previous = content
    return previous is not None and makes_calls(previous)  # nothing after it answers them


def makes_calls(content: Content) -> bool:
    """Whether ``content`` is a model turn with calls (that need responses after it)."""
    if content.role != "model":
        return False
    for part in content.parts:
        call = part.function_call
        if call is not None and call.id:
            return True
    return False


def _as_text(part: Part) -> Part:
    """A call or response that cannot stay one, as context the model can read."""
    response, call = part.function_response, part.function_call
    if response is not None:
        returned = json.dumps(response.response, default=str)
        return Part(text=f"For context: tool `{response.name}` returned {returned}")
    assert call is not None
    return Part(text=f"For context: tool `{call.name}` was called with {json.dumps(call.args)}")


def repair(
    contents: Sequence[Content], unanswered: Mapping[str, Unanswered] | None = None
) -> list[Content]:
    """``contents`` with the invariant of the module docstring restored.

    ``unanswered`` says, per call id, why a call has no response when that
    is known (``Unanswered.LOST`` otherwise).
    """
    called: set[str] = set()
    latest: dict[str, Part] = {}  # later responses to the same call replace earlier ones
    for content in contents:
        for part in content.parts:
            if part.function_call is not None and part.function_call.id and content.role == "model":
                called.add(part.function_call.id)
            response = part.function_response
            if response is not None and response.id:
                latest[response.id] = part
    newest_ids: set[str] = _response_ids(contents[-1]) & called if contents else set()
    repaired: list[Content] = []
    seen_calls: set[str] = set()
    cut: int | None = None
    for content in contents:
        kept, calls = _kept_parts(content, called, seen_calls)
        if kept:
            repaired.append(
                content if kept == content.parts else content.model_copy(update={"parts": kept})
            )
        if not calls:
            continue
        answers = [
            latest.get(call.id or "")
            or unanswered_response(call, (unanswered or {}).get(call.id or "", Unanswered.LOST))
            for call in calls
        ]
        repaired.append(Content(role="user", parts=answers))
        if newest_ids & {call.id for call in calls}:
            cut = len(repaired)
    return repaired if cut is None else repaired[:cut]


def _kept_parts(
    content: Content, called: set[str], seen_calls: set[str]
) -> tuple[list[Part], list[FunctionCall]]:
    """The parts of ``content`` that stay where they are, and its (first-seen) calls."""
    kept: list[Part] = []
    calls: list[FunctionCall] = []
    for part in content.parts:
        call, response = part.function_call, part.function_response
        if call is not None and call.id and content.role == "model":
            if call.id in seen_calls:
                continue  # a duplicate id: providers refuse it
            seen_calls.add(call.id)
            calls.append(call)
            kept.append(part)
        elif response is not None and response.id:
            if response.id not in called:
                kept.append(_as_text(part))  # moved next to its call otherwise
        elif call is not None and call.id:
            kept.append(_as_text(part))  # a call outside a model turn: no provider takes it
        else:
            kept.append(part)
    return kept, calls


def _response_ids(content: Content) -> set[str]:
    return {
        p.function_response.id
        for p in content.parts
        if p.function_response is not None and p.function_response.id
    }
