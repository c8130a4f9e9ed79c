"""Ids for the function calls and responses of a request that carry none.

The request builder strips the ids steadyflow made up itself (``sf-...``)
before a request goes out, as ADK strips its own: the model sees only ids
its provider issued. Gemini pairs a response with its call by name and
order, so it needs no id; Anthropic and OpenAI pair by id and refuse a
result whose id matches no call. Their adapters give each call without an
id a fresh one (``toolu_0``, ``call_1``), and each response without an id
the id of the earliest call of the same name not answered yet: the pairing
the session recorded, rebuilt by order.
"""

from __future__ import annotations

from collections import defaultdict, deque

from ..types import Content, Part

__all__ = ["with_call_ids"]


def _missing_ids(contents: list[Content]) -> bool:
    for content in contents:
        for part in content.parts:
            named = part.function_call or part.function_response
            if named is not None and not named.id:
                return True
    return False


def with_call_ids(contents: list[Content], prefix: str) -> list[Content]:
    """``contents`` with an id on every call and response (the same list when none lacked one)."""
    if not _missing_ids(contents):
        return contents
    made = 0
    unanswered: defaultdict[str, deque[str]] = defaultdict(deque)
    filled: list[Content] = []
    for content in contents:
        parts: list[Part] = []
        for part in content.parts:
            call, response = part.function_call, part.function_response
            if call is not None and not call.id:
                call_id = f"{prefix}{made}"
                made += 1
                unanswered[call.name].append(call_id)
                call = call.model_copy(update={"id": call_id})
                part = part.model_copy(update={"function_call": call})
            elif response is not None and not response.id:
                waiting = unanswered[response.name]
                if waiting:
                    response_id = waiting.popleft()
                else:
                    response_id, made = f"{prefix}{made}", made + 1
                response = response.model_copy(update={"id": response_id})
                part = part.model_copy(update={"function_response": response})
            parts.append(part)
        filled.append(content.model_copy(update={"parts": parts}))
    return filled
