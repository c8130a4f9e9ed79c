"""Client-side ids for function calls, given before the call event is stored.

Providers such as Gemini may return calls without ids; every stored call
needs one, so its response (and the durable journal, and the request
builder's pairing) can name it. A streamed call keeps the id its first
partial event showed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ..events import Event
from ..tools.base_tool import BaseTool
from ..types import FunctionCall

__all__ = ["CLIENT_CALL_ID_PREFIX", "assign_call_ids", "prepare_calls"]

CLIENT_CALL_ID_PREFIX = "sf-"


def assign_call_ids(calls: list[FunctionCall], given: list[tuple[str, str]]) -> None:
    """Give calls without an id a client-side one (in place).

    ``given`` lists the ``(name, id)`` pairs already handed out in this model
    call, in order: a streamed call keeps in the complete event the id it got
    in the partial event that first showed it. New pairs are added to it.
    """
    position = 0
    for call in calls:
        if call.id:
            continue
        if position < len(given) and given[position][0] == call.name:
            call.id = given[position][1]
        else:
            call.id = CLIENT_CALL_ID_PREFIX + os.urandom(8).hex()  # 16 hex digits
            del given[position:]
            given.append((call.name, call.id))
        position += 1


def prepare_calls(
    event: Event,
    calls: list[FunctionCall],
    tools: Mapping[str, BaseTool],
    given: list[tuple[str, str]] | None = None,
) -> None:
    """Ready a complete event's calls (``event.get_function_calls()``) before it is stored.

    Calls without an id get a client-side one (the one a partial event of the
    same call showed, see ``assign_call_ids``); calls of long-running tools
    are listed in ``long_running_tool_ids`` (left None when there are none).
    """
    assign_call_ids(calls, [] if given is None else given)
    long_running: list[str] = []
    for call in calls:  # a loop: a comprehension is one more frame per call event
        if call.id and (tool := tools.get(call.name)) is not None and tool.is_long_running:
            long_running.append(call.id)
    if long_running:
        event.long_running_tool_ids = long_running
