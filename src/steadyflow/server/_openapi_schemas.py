"""Hand-written JSON schemas of the OpenAPI document: what pydantic cannot say.

A user's message is narrower than a ``Content`` (role ``user``, one kind per
part, canonical base64); no request string may hold a NUL character
(PostgreSQL cannot store one); SSE messages and errors have their own shapes.
The server enforces each of these rules, so the spec states them exactly.
"""

from __future__ import annotations

from typing import Any

from ..sessions.invocations import InvocationStatus
from ._schemas import BASE64_PATTERN

__all__ = [
    "BASE64URL_PATTERN",
    "ERROR",
    "INVOCATION",
    "JSON_OBJECT",
    "JSON_VALUE",
    "SSE_EVENT",
    "TEXT",
    "USER_MESSAGE",
]

ERROR = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["type", "message"],
            "properties": {
                "type": {"type": "string"},
                "message": {"type": "string"},
                "fields": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["field", "message"],
                        "properties": {"field": {"type": "string"}, "message": {"type": "string"}},
                    },
                },
            },
        }
    },
}

_NULL = {"type": "null"}
BASE64URL_PATTERN = r"^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}==|[A-Za-z0-9_-]{3}=)?$"
_NO_NUL = "^[^\\x00]*$"
TEXT = {"type": "string", "pattern": _NO_NUL}
JSON_OBJECT = {
    "type": "object",
    "propertyNames": {"pattern": _NO_NUL},
    "additionalProperties": {"$ref": "#/components/schemas/JsonValue"},
}
JSON_VALUE = {
    "description": "Any JSON value without NUL characters (PostgreSQL cannot store them).",
    "anyOf": [
        TEXT,
        {"type": ["number", "boolean", "null"]},
        {"type": "array", "items": {"$ref": "#/components/schemas/JsonValue"}},
        JSON_OBJECT,
    ],
}


def _part(field: str, schema: dict[str, Any]) -> dict[str, Any]:
    """A part holding exactly ``field`` (the other kinds absent or null)."""
    others = {k: _NULL for k in ("text", "function_call", "function_response", "inline_data")}
    return {
        "type": "object",
        "additionalProperties": False,
        "required": [field],
        "properties": {**others, field: schema, "thought": {"type": ["boolean", "null"]}},
    }


_FUNCTION_RESPONSE = {
    "type": "object",
    "description": "The result of a long-running tool call.",
    "additionalProperties": False,
    "required": ["name"],
    "properties": {"id": {"anyOf": [TEXT, _NULL]}, "name": TEXT, "response": JSON_OBJECT},
}
_BLOB = {
    "type": "object",
    "additionalProperties": False,
    "required": ["mime_type", "data"],
    "properties": {
        "mime_type": TEXT,
        "data": {"type": "string", "contentEncoding": "base64", "pattern": BASE64_PATTERN},
    },
}
USER_MESSAGE = {
    "type": "object",
    "description": "A message a user may send: text, tool results (long-running tools), bytes.",
    "additionalProperties": False,
    "required": ["parts"],
    "properties": {
        "role": {"const": "user"},
        "parts": {
            "type": "array",
            "minItems": 1,
            "items": {
                "anyOf": [
                    _part("text", {**TEXT, "minLength": 1}),
                    _part("function_response", _FUNCTION_RESPONSE),
                    _part("inline_data", _BLOB),
                ]
            },
        },
    },
}

SSE_EVENT = {
    "type": "object",
    "description": "One SSE message; `data` is JSON: an Event, the done summary, or the error.",
    "required": ["event", "data"],
    "properties": {"event": {"enum": ["event", "done", "error"]}, "data": {"type": "string"}},
}

_NUMBER_OR_NULL = {"type": ["number", "null"]}
_STRING_OR_NULL = {"type": ["string", "null"]}
INVOCATION = {
    "type": "object",
    "description": "An invocation's record: where the turn stands, who runs it, its trace.",
    "required": ["id", "app_name", "user_id", "session_id", "agent", "status", "started_at"],
    "properties": {
        "id": {"type": "string"},
        "app_name": {"type": "string"},
        "user_id": {"type": "string"},
        "session_id": {"type": "string"},
        "agent": {"type": "string"},
        "status": {"enum": [s.value for s in InvocationStatus]},
        "started_at": {"type": "number"},
        "ended_at": _NUMBER_OR_NULL,
        "llm_calls": {"type": "integer"},
        "max_llm_calls": {"type": "integer"},
        "error_type": _STRING_OR_NULL,
        "error_message": _STRING_OR_NULL,
        "owner": {
            "anyOf": [
                _NULL,
                {
                    "type": "object",
                    "required": ["host", "pid", "started_at"],
                    "properties": {
                        "host": {"type": "string"},
                        "pid": {"type": "integer"},
                        "started_at": {"type": "number"},
                    },
                },
            ]
        },
        "lease_expires_at": _NUMBER_OR_NULL,
        "resume_count": {"type": "integer"},
        "revision": {"type": "integer"},
        "trace": {
            "description": "The stored trace (steps, attempts, tools), once the invocation ended.",
            "type": ["object", "null"],
        },
    },
}
