"""Strip the call ids steadyflow made up from a request's contents, as ADK strips its own.

A model's function call without an id gets one on the client
(``sf-`` + random, ``_functions.assign_call_ids``) so its response can be
paired with it in the session, in traces and after a crash. The model
never issued that id, so it is not sent back: the request's calls and
responses lose ids starting ``sf-`` (ids the provider issued are kept).
The session keeps them. Adapters whose API pairs by id give the stripped
calls ids of their own, in order (``models._call_ids``).

Done by the contents processor, apart from the pairing of responses with
calls (which needs the ids): each content is stripped once, when its event
is converted, and kept beside the content itself, so a step's cost stays
flat as the session grows; the rare paired request is stripped after
pairing. Contents are the stored events' own objects: a content holding a
client id is copied, never changed.
"""

from __future__ import annotations

from ...types import Content, Part
from .._call_ids import CLIENT_CALL_ID_PREFIX

__all__ = ["stripped_content", "without_client_ids"]


def _is_client_id(call_id: str | None) -> bool:
    return call_id is not None and call_id.startswith(CLIENT_CALL_ID_PREFIX)


def _has_client_id(content: Content) -> bool:
    for part in content.parts:
        named = part.function_call or part.function_response
        if named is not None and _is_client_id(named.id):
            return True
    return False


def _stripped(part: Part) -> Part:
    call, response = part.function_call, part.function_response
    if call is not None and _is_client_id(call.id):
        return part.model_copy(update={"function_call": call.model_copy(update={"id": None})})
    if response is not None and _is_client_id(response.id):
        stripped = response.model_copy(update={"id": None})
        return part.model_copy(update={"function_response": stripped})
    return part


def stripped_content(content: Content) -> Content:
    """``content`` without client-made call ids (the same object when it had none)."""
    if not _has_client_id(content):
        return content
    return content.model_copy(update={"parts": [_stripped(p) for p in content.parts]})


def without_client_ids(contents: list[Content]) -> list[Content]:
    """Each of ``contents`` without client-made call ids."""
    return [stripped_content(content) for content in contents]
