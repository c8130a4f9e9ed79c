"""Confirmation requests and answers: the wire shape a person answers.

A tool call that needs a person's yes or no (``FunctionTool(fn,
require_confirmation=...)``, ``tool_context.request_confirmation(...)``)
pauses its invocation. The pause is an event whose content holds one
function call per paused tool call, named ``REQUEST_CONFIRMATION_NAME``,
with its id in the event's ``long_running_tool_ids`` and these arguments::

    {"original_call": {"id": "...", "name": "transfer", "args": {...}},
     "hint": "what the person is asked", "payload": <JSON the tool offered>}

The answer is a ``FunctionResponse`` for that call id (and name), sent as
the ``new_message`` of ``Runner.run_async``, whose response is::

    {"confirmed": true | false, "payload": <optional JSON for the tool>}

``confirmation_answer`` builds one. The model never sees either side: both
are bookkeeping between the runtime and the person, left out of requests.
This module is data only (it imports nothing of the runtime), so contexts,
tools, flows and the durable layer all read the same shape.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from .errors import ConfirmationError
from .events import Event
from .types import Content, FunctionCall, FunctionResponse, Part

__all__ = [
    "REQUEST_CONFIRMATION_NAME",
    "SUPERSEDED_REASON",
    "ConfirmationRequest",
    "ToolConfirmation",
    "confirmation_answer",
    "confirmation_requests",
    "declined_response",
    "default_hint",
    "is_confirmation_event",
    "parse_answers",
    "request_call",
    "superseded_response",
]

REQUEST_CONFIRMATION_NAME = "steadyflow_request_confirmation"
"""The name of the function call that asks a person to confirm a tool call."""

_ANSWER_KEYS = frozenset({"confirmed", "payload"})


@dataclass(frozen=True, slots=True)
class ToolConfirmation:
    """A person's answer to a confirmation request, as the tool sees it.

    Attributes:
        confirmed: whether the person allowed the call.
        payload: JSON data the person sent with the answer (None: none).
        hint: what the person was asked.
    """

    confirmed: bool
    payload: Any = None
    hint: str = ""


@dataclass(frozen=True, slots=True)
class ConfirmationRequest:
    """One pending request, read from a pause event.

    Attributes:
        id: the request call's id (the answer's ``FunctionResponse.id``).
        call: the tool call waiting for the answer.
        hint: what the person is asked.
        payload: JSON data the tool offered the person (None: none).
    """

    id: str
    call: FunctionCall
    hint: str = ""
    payload: Any = None


def request_call(original: FunctionCall, hint: str, payload: Any) -> FunctionCall:
    """The function call that asks a person to confirm ``original``."""
    args: dict[str, Any] = {
        "original_call": original.model_dump(mode="json"),
        "hint": hint,
        "payload": payload,
    }
    return FunctionCall(
        id="sf-confirm-" + os.urandom(8).hex(), name=REQUEST_CONFIRMATION_NAME, args=args
    )


def default_hint(call: FunctionCall) -> str:
    """What a person is asked about a call of a ``require_confirmation`` tool."""
    return f"Allow this call of tool {call.name!r} with the arguments shown?"


def declined_response(call: FunctionCall, confirmation: ToolConfirmation) -> dict[str, Any]:
    """What the model reads for a call a person declined (the tool did not run)."""
    response: dict[str, Any] = {
        "error": f"declined: a person declined this call of tool {call.name!r}; it did not run",
        "declined": True,
    }
    if confirmation.payload is not None:
        response["payload"] = confirmation.payload
    return response


SUPERSEDED_REASON = "superseded by a new message"
"""Why a call that waited for a confirmation was declined when a new message came instead."""


def superseded_response(call: FunctionCall) -> dict[str, Any]:
    """What the model reads for a waiting call a new message superseded (the tool did not run)."""
    return {
        "error": (
            f"declined: {SUPERSEDED_REASON}; this call of tool {call.name!r} was waiting "
            "for a person's confirmation and did not run"
        ),
        "declined": True,
        "reason": SUPERSEDED_REASON,
    }


def _as_request(call: FunctionCall) -> ConfirmationRequest | None:
    if call.name != REQUEST_CONFIRMATION_NAME or not call.id:
        return None
    original = call.args.get("original_call")
    if not isinstance(original, dict):
        return None
    hint = call.args.get("hint")
    return ConfirmationRequest(
        id=call.id,
        call=FunctionCall.model_validate(original),
        hint=hint if isinstance(hint, str) else "",
        payload=call.args.get("payload"),
    )


def confirmation_requests(event: Event) -> list[ConfirmationRequest]:
    """The confirmation requests ``event`` holds, in order (none for most events)."""
    found = (_as_request(call) for call in event.get_function_calls())
    return [request for request in found if request is not None]


def is_confirmation_event(event: Event) -> bool:
    """Whether ``event`` is a pause or an answer (bookkeeping the model never sees)."""
    content = event.content
    if content is None:
        return False
    for part in content.parts:
        named = part.function_call or part.function_response
        if named is not None and named.name == REQUEST_CONFIRMATION_NAME:
            return True
    return False


def confirmation_answer(request_id: str, *, confirmed: bool, payload: Any = None) -> Content:
    """The message that answers request ``request_id`` (pass it as ``new_message``)."""
    response: dict[str, Any] = {"confirmed": confirmed}
    if payload is not None:
        response["payload"] = payload
    return Content.from_parts(
        Part.from_function_response(REQUEST_CONFIRMATION_NAME, response, id=request_id)
    )


def _parse(answer: FunctionResponse) -> tuple[str, ToolConfirmation]:
    if not answer.id:
        raise ConfirmationError(
            f"a {REQUEST_CONFIRMATION_NAME} answer needs the id of the request it answers"
        )
    response = answer.response
    unknown = sorted(set(response) - _ANSWER_KEYS)
    confirmed = response.get("confirmed")
    if unknown or not isinstance(confirmed, bool):
        problem = (
            f"unknown keys {unknown}" if unknown else f"'confirmed' is {confirmed!r}, not a bool"
        )
        raise ConfirmationError(
            f"malformed answer to confirmation request {answer.id!r}: {problem}; "
            'answer {"confirmed": true | false, "payload": <optional JSON>}'
        )
    return answer.id, ToolConfirmation(confirmed, response.get("payload"))


def parse_answers(message: Content) -> dict[str, ToolConfirmation] | None:
    """The confirmation answers ``message`` holds, by request id; None when it holds none.

    Raises:
        ConfirmationError: a malformed answer, one answered twice, or a
            message that mixes answers with anything else.
    """
    mine: list[FunctionResponse] = []
    for part in message.parts:  # a plain loop: every message of every run passes here
        answer = part.function_response
        if answer is not None and answer.name == REQUEST_CONFIRMATION_NAME:
            mine.append(answer)
    if not mine:
        return None
    if len(mine) != len(message.parts):
        raise ConfirmationError(
            "a message answering confirmation requests must hold only "
            f"{REQUEST_CONFIRMATION_NAME} function responses; send other parts separately"
        )
    parsed: dict[str, ToolConfirmation] = {}
    for answer in mine:
        request_id, confirmation = _parse(answer)
        if request_id in parsed:
            raise ConfirmationError(f"confirmation request {request_id!r} is answered twice")
        parsed[request_id] = confirmation
    return parsed
