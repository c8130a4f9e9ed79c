"""Pairing function responses with their calls in a request's contents.

Providers reject a tool result that does not follow its call. Replayed in
the session's order, a long-running tool breaks that rule: its call gets an
intermediate response at once (a status), the conversation goes on, and the
final result arrives later as a user message carrying a ``FunctionResponse``
with the call's id. So, as ADK does:

- every call is followed by its responses, the latest one for each id (an
  earlier response to the same call is dropped); responses whose call is not
  in the contents stay where they are;
- when the newest content is such a late response, everything between its
  call and it (intermediate responses, text) is left out of the request, so
  the model answers the result it is waiting for.

The session keeps every event; only the request is rearranged.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...types import Content, Part

__all__ = ["is_paired_after", "needs_pairing", "pair_function_responses"]


def _call_ids(content: Content) -> list[str]:
    return [p.function_call.id for p in content.parts if p.function_call and p.function_call.id]


def _response_ids(content: Content) -> list[str]:
    return [
        p.function_response.id
        for p in content.parts
        if p.function_response is not None and p.function_response.id
    ]


def is_paired_after(previous: Content | None, content: Content) -> bool:
    """Whether ``content``'s responses (if any) all answer calls in ``previous``."""
    # Loops, no comprehension frames: asked of every content of every request.
    unanswered: set[str] = set()
    for part in content.parts:
        response = part.function_response
        if response is not None and response.id:
            unanswered.add(response.id)
    if not unanswered:
        return True
    if previous is None:
        return False
    for part in previous.parts:
        call = part.function_call
        if call is not None and call.id:
            unanswered.discard(call.id)
    return not unanswered


def needs_pairing(contents: Sequence[Content]) -> bool:
    """Whether some response does not directly follow its call."""
    return not all(
        is_paired_after(contents[i - 1] if i else None, c) for i, c in enumerate(contents)
    )


def pair_function_responses(contents: Sequence[Content]) -> list[Content]:
    """``contents`` with each call's latest responses right after it (see the module)."""
    called = {call_id for content in contents for call_id in _call_ids(content)}
    latest: dict[str, Part] = {}  # later responses to the same call replace earlier ones
    for content in contents:
        for part in content.parts:
            response = part.function_response
            if response is not None and response.id in called:
                latest[response.id] = part
    if not latest:
        return list(contents)
    newest_ids: set[str] = set(_response_ids(contents[-1])) & called if contents else set()
    paired: list[Content] = []
    cut: int | None = None
    for content in contents:
        kept = [
            p
            for p in content.parts
            if p.function_response is None or p.function_response.id not in called
        ]
        if kept:
            paired.append(
                content
                if len(kept) == len(content.parts)
                else content.model_copy(update={"parts": kept})
            )
        answers = [latest[i] for i in _call_ids(content) if i in latest]
        if answers:
            paired.append(Content(role="user", parts=answers))
            if newest_ids & set(_call_ids(content)):
                cut = len(paired)
    return paired if cut is None else paired[:cut]
