"""Events and state values to JSON and back, for the SQL session store.

Events are stored as JSON documents. Bytes (``Blob.data`` of an image part)
become base64 (URL-safe alphabet) and are decoded again on load. State
values and free-form fields (``custom_metadata``, tool arguments) must be
JSON values; other Python values are converted the way pydantic converts
them (a ``datetime`` becomes an ISO string) and come back converted, and a
value pydantic cannot convert raises ``SessionError`` naming the key.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from pydantic_core import PydanticSerializationError, to_jsonable_python

from ...errors import SessionError
from ...events import Event

__all__ = ["decode_event", "encode_event", "encode_state", "encoded_size"]


def encode_event(event: Event) -> Any:
    """A JSON-ready copy of ``event`` (``None`` fields and empty actions left out)."""
    exclude = {"actions"} if event.actions.is_empty() else None
    try:
        dumped = event.model_dump(exclude_none=True, exclude=exclude)
        return to_jsonable_python(dumped, bytes_mode="base64")
    except PydanticSerializationError as exc:
        raise SessionError(f"event {event.id!r} holds a value that is not JSON: {exc}") from exc


def encoded_size(data: Any) -> int:
    """The size in bytes of ``data`` (an ``encode_event`` result) as stored JSON text."""
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())


def decode_event(text: str) -> Event:
    """The event stored as ``text`` by ``encode_event``."""
    if '"inline_data"' not in text:
        return Event.model_validate_json(text)  # fast path: nothing to decode by hand
    data = json.loads(text)
    content: dict[str, Any] = data.get("content") or {}
    for part in content.get("parts", []):
        blob = part.get("inline_data")
        if blob is not None:
            blob["data"] = base64.urlsafe_b64decode(blob["data"])
    return Event.model_validate(data)


def encode_state(state: dict[str, Any]) -> dict[str, Any]:
    """A JSON-ready copy of ``state``; raises ``SessionError`` naming a bad key."""
    out: dict[str, Any] = {}
    for key, value in state.items():
        if not isinstance(key, str):
            raise SessionError(f"state key {key!r} is not a string")
        try:
            out[key] = to_jsonable_python(value, bytes_mode="base64")
        except PydanticSerializationError as exc:
            raise SessionError(
                f"state key {key!r} holds a {type(value).__name__}, which is not JSON; "
                "store JSON values (str, int, float, bool, None, lists, dicts)"
            ) from exc
    return out
