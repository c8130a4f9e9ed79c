"""The OpenAPI 3.1 document served at ``/openapi.json``.

Schemas come from the same pydantic models that validate requests; the
operator's limits and the served app's name are written into them, so a
client (or a fuzzer) generating requests from the spec produces requests
this server accepts, and the spec documents every status it can answer.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from pydantic.json_schema import models_json_schema

from ._limits import ServerLimits
from ._schemas import (
    BASE64_PATTERN,
    ID_PATTERN,
    CreateSessionRequest,
    Health,
    RunRequest,
    RunResult,
    SessionDetail,
    SessionSummary,
)

__all__ = ["openapi_spec"]

_REF = "#/components/schemas/{model}"

_ERROR = {
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
_BASE64URL = r"^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}==|[A-Za-z0-9_-]{3}=)?$"
_NO_NUL = "^[^\\x00]*$"
_TEXT = {"type": "string", "pattern": _NO_NUL}
_OBJECT = {
    "type": "object",
    "propertyNames": {"pattern": _NO_NUL},
    "additionalProperties": {"$ref": "#/components/schemas/JsonValue"},
}
_JSON_VALUE = {
    "description": "Any JSON value without NUL characters (PostgreSQL cannot store them).",
    "anyOf": [
        _TEXT,
        {"type": ["number", "boolean", "null"]},
        {"type": "array", "items": {"$ref": "#/components/schemas/JsonValue"}},
        _OBJECT,
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
    "properties": {"id": {"anyOf": [_TEXT, _NULL]}, "name": _TEXT, "response": _OBJECT},
}
_BLOB = {
    "type": "object",
    "additionalProperties": False,
    "required": ["mime_type", "data"],
    "properties": {
        "mime_type": _TEXT,
        "data": {"type": "string", "contentEncoding": "base64", "pattern": BASE64_PATTERN},
    },
}
_USER_MESSAGE = {
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
                    _part("text", {**_TEXT, "minLength": 1}),
                    _part("function_response", _FUNCTION_RESPONSE),
                    _part("inline_data", _BLOB),
                ]
            },
        },
    },
}

_SSE_EVENT = {
    "type": "object",
    "description": "One SSE message; `data` is JSON: an Event, the done summary, or the error.",
    "required": ["event", "data"],
    "properties": {"event": {"enum": ["event", "done", "error"]}, "data": {"type": "string"}},
}

_SESSION = {
    "app": "$response.body#/app_name",
    "user": "$response.body#/user_id",
    "session": "$response.body#/id",
}
_TURN = {
    "app_name": "$response.body#/app_name",
    "user_id": "$response.body#/user_id",
    "session_id": "$response.body#/id",
}
_SESSION_LINKS = {
    "GetSession": {"operationId": "getSession", "parameters": _SESSION},
    "DeleteSession": {"operationId": "deleteSession", "parameters": _SESSION},
    "RunTurn": {"operationId": "run", "requestBody": _TURN},
    "StreamTurn": {"operationId": "runSse", "requestBody": _TURN},
}

_REASONS = {
    401: "Missing or wrong bearer token.",
    404: "No such app or session.",
    409: "Conflict: the session id is taken, or another writer appended first.",
    413: "Request body too large.",
    415: "The body is not JSON.",
    422: "Invalid request; the body names each invalid field.",
    429: "The turn used up its max_llm_calls quota.",
    500: "The agent, a tool or a callback raised.",
    502: "The model provider failed.",
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": _REF.format(model=name)}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _errors(*codes: int) -> dict[str, Any]:
    return {str(c): {"description": _REASONS[c], **_json(_ref("Error"))} for c in codes}


def _patch_bytes(node: Any) -> None:
    """Bytes in responses are padded URL-safe base64 (pydantic's encoding): say so exactly."""
    if isinstance(node, dict):
        if node.get("type") == "string" and node.get("format") in ("binary", "base64url"):
            del node["format"]
            node["contentEncoding"] = "base64url"
            node["pattern"] = _BASE64URL
        for value in node.values():
            _patch_bytes(value)
    elif isinstance(node, list):
        for value in node:
            _patch_bytes(value)


@functools.cache
def _model_schemas() -> dict[str, Any]:
    """The models' schemas (generated once: pydantic takes ~0.1 s for them)."""
    _, top = models_json_schema(
        [
            (RunRequest, "validation"),
            (CreateSessionRequest, "validation"),
            (SessionSummary, "serialization"),
            (SessionDetail, "serialization"),
            (RunResult, "serialization"),
            (Health, "serialization"),
        ],
        ref_template=_REF,
    )
    schemas: dict[str, Any] = top["$defs"]
    _patch_bytes(schemas)
    return schemas


def _schemas(app_name: str, limits: ServerLimits) -> dict[str, Any]:
    schemas = copy.deepcopy(_model_schemas())
    options = schemas["RunOptions"]["properties"]
    options["max_llm_calls"]["anyOf"][0].update(minimum=1, maximum=limits.max_llm_calls)
    options["retry_max_attempts"]["anyOf"][0].update(minimum=1, maximum=limits.max_retry_attempts)
    request = schemas["RunRequest"]["properties"]
    request["app_name"]["enum"] = [app_name]
    request["new_message"]["anyOf"] = [_ref("UserMessage"), {**_TEXT, "minLength": 1}]
    schemas["UserMessage"] = _USER_MESSAGE
    schemas["JsonValue"] = _JSON_VALUE
    schemas["CreateSessionRequest"]["properties"]["state"]["anyOf"][0] = _OBJECT
    schemas["Error"] = _ERROR
    return schemas


def _param(name: str, app_name: str | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "pattern": ID_PATTERN}
    if app_name is not None:
        schema = {"type": "string", "enum": [app_name]}
    return {"name": name, "in": "path", "required": True, "schema": schema}


def _paths(app_name: str) -> dict[str, Any]:
    app, user, session = _param("app", app_name), _param("user"), _param("session")
    sessions_list = {"description": "Sessions, oldest first, without events."}
    sessions_list |= _json({"type": "array", "items": _ref("SessionSummary")})
    body_errors = (413, 415, 422)
    run_body = {"required": True, **_json(_ref("RunRequest"))}
    run_result = {"description": "The turn's events; `error` says why a failed turn ended."}
    run_result |= _json(_ref("RunResult"))
    sse: dict[str, Any] = {
        "description": "Server-Sent Events: `event` frames, then `done` or `error`.",
        "content": {"text/event-stream": {"schema": _SSE_EVENT}},
    }
    one_session = {"parameters": [app, user, session]}
    return {
        "/health": {
            "get": {
                "operationId": "health",
                "summary": "Liveness",
                "security": [],
                "responses": {"200": {"description": "Up.", **_json(_ref("Health"))}},
            }
        },
        "/apps": {
            "get": {
                "operationId": "listApps",
                "summary": "The app this server serves",
                "responses": {
                    "200": {
                        "description": "App names.",
                        **_json(
                            {
                                "type": "object",
                                "required": ["apps"],
                                "properties": {
                                    "apps": {"type": "array", "items": {"type": "string"}}
                                },
                            }
                        ),
                    }
                },
            }
        },
        "/apps/{app}/sessions": {
            "parameters": [app],
            "get": {
                "operationId": "listAllSessions",
                "summary": "List every user's sessions",
                "responses": {"200": sessions_list, **_errors(404, 422)},
            },
        },
        "/apps/{app}/users/{user}/sessions": {
            "parameters": [app, user],
            "get": {
                "operationId": "listSessions",
                "summary": "List a user's sessions",
                "responses": {"200": sessions_list, **_errors(404, 422)},
            },
            "post": {
                "operationId": "createSession",
                "summary": "Create a session",
                "requestBody": {"required": False, **_json(_ref("CreateSessionRequest"))},
                "responses": {
                    "201": {
                        "description": "Created.",
                        **_json(_ref("SessionDetail")),
                        "links": _SESSION_LINKS,
                    },
                    **_errors(404, 409, *body_errors),
                },
            },
        },
        "/apps/{app}/users/{user}/sessions/{session}": {
            **one_session,
            "get": {
                "operationId": "getSession",
                "summary": "Get a session with its events",
                "responses": {
                    "200": {"description": "The session.", **_json(_ref("SessionDetail"))},
                    **_errors(404, 422),
                },
            },
            "delete": {
                "operationId": "deleteSession",
                "summary": "Delete a session",
                "responses": {"204": {"description": "Deleted."}, **_errors(404, 422)},
            },
        },
        "/run": {
            "post": {
                "operationId": "run",
                "summary": "Run one turn; answer with its events",
                "requestBody": run_body,
                "responses": {
                    "200": run_result,
                    **{str(c): run_result for c in (409, 429, 500, 502)},
                    **_errors(404, *body_errors),
                },
            }
        },
        "/run_sse": {
            "post": {
                "operationId": "runSse",
                "summary": "Run one turn, streaming its events (SSE)",
                "requestBody": run_body,
                "responses": {"200": sse, **_errors(404, *body_errors)},
            }
        },
    }


def openapi_spec(app_name: str, limits: ServerLimits, *, auth: bool) -> dict[str, Any]:
    """The OpenAPI document for a server of ``app_name`` under ``limits``."""
    paths = _paths(app_name)
    spec: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": f"steadyflow: {app_name}",
            "version": "1",
            "description": "Sessions and turns of one steadyflow agent.",
        },
        "paths": paths,
        "components": {"schemas": _schemas(app_name, limits)},
    }
    if auth:
        spec["components"]["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
        spec["security"] = [{"bearer": []}]
        for path, item in paths.items():
            if path == "/health":
                continue
            for key, operation in item.items():
                if key != "parameters":
                    operation["responses"].update(_errors(401))
    return spec
