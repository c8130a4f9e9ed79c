"""The OpenAPI 3.1 document served at ``/openapi.json``.

Schemas come from the same pydantic models that validate requests; the
operator's limits and the served app's name are written into them, so a
client (or a fuzzer) generating requests from the spec produces requests
this server accepts, and the spec documents every status it can answer.
Links from "create a session" to the operations that use one let clients
and fuzzers chain calls on real sessions.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from pydantic.json_schema import models_json_schema

from .._json import is_array, is_object
from ..models.llm_request import LlmRequest
from ._limits import ServerLimits
from ._openapi_schemas import (
    BASE64URL_PATTERN,
    ERROR,
    INVOCATION,
    JSON_OBJECT,
    JSON_VALUE,
    SSE_EVENT,
    TEXT,
    USER_MESSAGE,
)
from ._schemas import (
    ID_PATTERN,
    CreateSessionRequest,
    Health,
    ResumeRequest,
    RunRequest,
    RunResult,
    SessionDetail,
    SessionSummary,
)

__all__ = ["openapi_spec"]

_REF = "#/components/schemas/{model}"
_SESSION_PATH = "/apps/{app}/users/{user}/sessions/{session}"

_REASONS = {
    400: "The Host header is not one this server answers for.",
    401: "Missing or wrong bearer token.",
    403: "Refused: a browser page of another origin, or not the operator token.",
    404: "No such app, session, invocation or recorded request.",
    409: (
        "Conflict: the session id is taken, another writer changed the session, nothing "
        "is left to resume, or the confirmation answered is not waiting."
    ),
    413: "Request body too large.",
    415: "The body is not declared as Content-Type: application/json.",
    422: "Invalid request; the body names each invalid field.",
    429: "The turn used up its max_llm_calls quota.",
    500: "The agent, a tool or a callback raised.",
    502: "The model provider failed.",
    503: "The session database failed (read-only, full, unreachable); retry later.",
    507: "An event of the turn is over the session store's max_event_bytes.",
}

_FROM_SESSION = {
    "app": "$response.body#/app_name",
    "user": "$response.body#/user_id",
    "session": "$response.body#/id",
}
_TURN_FROM_SESSION = {
    "app_name": "$response.body#/app_name",
    "user_id": "$response.body#/user_id",
    "session_id": "$response.body#/id",
}
_SESSION_LINKS = {
    "GetSession": {"operationId": "getSession", "parameters": _FROM_SESSION},
    "DeleteSession": {"operationId": "deleteSession", "parameters": _FROM_SESSION},
    "RunTurn": {"operationId": "run", "requestBody": _TURN_FROM_SESSION},
    "StreamTurn": {"operationId": "runSse", "requestBody": _TURN_FROM_SESSION},
    "Resume": {"operationId": "resume", "parameters": _FROM_SESSION, "requestBody": {}},
}


_STREAM = {
    "description": "Server-Sent Events: `event` messages, then `done` or `error`.",
    "content": {"text/event-stream": {"schema": SSE_EVENT}},
}

_INVOCATION_OF_TURN: dict[str, object] = {
    "app": "$request.body#/app_name",
    "user": "$request.body#/user_id",
    "session": "$request.body#/session_id",
    "invocation": "$response.body#/events/0/invocation_id",
}
_STEP_FROM_TURN = {
    "operationId": "getStepRequest",
    "parameters": {**_INVOCATION_OF_TURN, "step": 1},
}
_INVOCATION_FROM_TURN = {"operationId": "getInvocation", "parameters": _INVOCATION_OF_TURN}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": _REF.format(model=name)}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _ok(description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"description": description, **(_json(schema) if schema is not None else {})}


def _errors(*codes: int) -> dict[str, Any]:
    return {str(c): _ok(_REASONS[c], _ref("Error")) for c in codes}


def _patch_bytes(node: Any) -> None:
    """Bytes in responses are padded URL-safe base64 (pydantic's encoding): say so exactly."""
    if is_object(node):
        if node.get("type") == "string" and node.get("format") in ("binary", "base64url"):
            del node["format"]
            node["contentEncoding"] = "base64url"
            node["pattern"] = BASE64URL_PATTERN
        for value in node.values():
            _patch_bytes(value)
    elif is_array(node):
        for value in node:
            _patch_bytes(value)


@functools.cache
def _model_schemas() -> dict[str, Any]:
    """The models' schemas (generated once: pydantic takes ~0.1 s for them)."""
    _, top = models_json_schema(
        [
            (RunRequest, "validation"),
            (ResumeRequest, "validation"),
            (CreateSessionRequest, "validation"),
            (SessionSummary, "serialization"),
            (SessionDetail, "serialization"),
            (RunResult, "serialization"),
            (Health, "serialization"),
            (LlmRequest, "serialization"),
        ],
        ref_template=_REF,
    )
    schemas: dict[str, Any] = top["$defs"]
    _patch_bytes(schemas)
    return schemas


def _usage_schema(schema: dict[str, Any], limits: ServerLimits, priced: bool) -> None:
    """The operator's ceilings as maximums; no ``max_cost`` when a model has no price."""
    fields = schema["properties"]
    if not priced:
        del fields["max_cost"]
    if limits.max_usage is None:
        return
    for name, field in fields.items():
        ceiling = getattr(limits.max_usage, name)
        if ceiling is not None:
            field["anyOf"][0]["maximum"] = float(ceiling) if name == "max_cost" else ceiling


def _schemas(app_name: str, limits: ServerLimits, priced: bool) -> dict[str, Any]:
    schemas = copy.deepcopy(_model_schemas())
    options = schemas["RunOptions"]["properties"]
    options["max_llm_calls"]["anyOf"][0].update(minimum=1, maximum=limits.max_llm_calls)
    options["retry_max_attempts"]["anyOf"][0].update(minimum=1, maximum=limits.max_retry_attempts)
    _usage_schema(schemas["UsageLimitOptions"], limits, priced)
    request = schemas["RunRequest"]["properties"]
    request["app_name"]["enum"] = [app_name]
    request["new_message"]["anyOf"] = [_ref("UserMessage"), {**TEXT, "minLength": 1}]
    schemas["CreateSessionRequest"]["properties"]["state"]["anyOf"][0] = JSON_OBJECT
    schemas.update(
        UserMessage=USER_MESSAGE, JsonValue=JSON_VALUE, Error=ERROR, Invocation=INVOCATION
    )
    return schemas


def _param(name: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    schema = schema or {"type": "string", "pattern": ID_PATTERN}
    return {"name": name, "in": "path", "required": True, "schema": schema}


def _operation(
    op_id: str, summary: str, responses: dict[str, Any], body: dict[str, Any] | None = None
) -> dict[str, Any]:
    operation = {"operationId": op_id, "summary": summary, "responses": responses}
    if body is not None:
        operation["requestBody"] = body
    return operation


def _session_paths(app: dict[str, Any]) -> dict[str, Any]:
    user, session = _param("user"), _param("session")
    listed = _ok(
        "Sessions, oldest first, without events.",
        {"type": "array", "items": _ref("SessionSummary")},
    )
    created = {**_ok("Created.", _ref("SessionDetail")), "links": _SESSION_LINKS}
    create_body = {"required": False, **_json(_ref("CreateSessionRequest"))}
    step = _param("step", {"type": "integer", "minimum": 0})
    return {
        "/apps/{app}/sessions": {
            "parameters": [app],
            "get": _operation(
                "listAllSessions",
                "List every user's sessions (needs the operator token)",
                {"200": listed, **_errors(403, 404, 422)},
            ),
        },
        "/apps/{app}/users/{user}/sessions": {
            "parameters": [app, user],
            "get": _operation(
                "listSessions", "List a user's sessions", {"200": listed, **_errors(404, 422)}
            ),
            "post": _operation(
                "createSession",
                "Create a session",
                {"201": created, **_errors(404, 409, 413, 415, 422)},
                create_body,
            ),
        },
        _SESSION_PATH: {
            "parameters": [app, user, session],
            "get": _operation(
                "getSession",
                "Get a session with its events",
                {"200": _ok("The session.", _ref("SessionDetail")), **_errors(404, 422)},
            ),
            "delete": _operation(
                "deleteSession", "Delete a session", {"204": _ok("Deleted."), **_errors(404, 422)}
            ),
        },
        f"{_SESSION_PATH}/invocations": {
            "parameters": [app, user, session],
            "get": _operation(
                "listInvocations",
                "A session's invocation records (status, budget, owner, trace), oldest first",
                {
                    "200": _ok("The records.", {"type": "array", "items": _ref("Invocation")}),
                    **_errors(404, 422),
                },
            ),
        },
        f"{_SESSION_PATH}/resume": {
            "parameters": [app, user, session],
            "post": _operation(
                "resume",
                "Continue the session's unfinished invocation, streaming its events (SSE)",
                {"200": _STREAM, **_errors(404, 409, 413, 415, 422)},
                {"required": False, **_json(_ref("ResumeRequest"))},
            ),
        },
        f"{_SESSION_PATH}/invocations/{{invocation}}": {
            "parameters": [app, user, session, _param("invocation")],
            "get": _operation(
                "getInvocation",
                "One invocation record with its trace",
                {"200": _ok("The record.", _ref("Invocation")), **_errors(404, 422)},
            ),
        },
        f"{_SESSION_PATH}/invocations/{{invocation}}/steps/{{step}}/request": {
            "parameters": [app, user, session, _param("invocation"), step],
            "get": _operation(
                "getStepRequest",
                "The exact LlmRequest a step sent (kept by the process that ran it)",
                {"200": _ok("The request.", _ref("LlmRequest")), **_errors(404, 422)},
            ),
        },
    }


def _paths(app_name: str) -> dict[str, Any]:
    app = _param("app", {"type": "string", "enum": [app_name]})
    apps = {
        "type": "object",
        "required": ["apps", "list_all_sessions"],
        "properties": {
            "apps": {"type": "array", "items": TEXT},
            "list_all_sessions": {
                "type": "boolean",
                "description": "Whether this caller may list every user's sessions.",
            },
        },
    }
    turn_body = {"required": True, **_json(_ref("RunRequest"))}
    result = _ok("The turn's events; `error` says why a failed turn ended.", _ref("RunResult"))
    links = {"FirstStepRequest": _STEP_FROM_TURN, "Invocation": _INVOCATION_FROM_TURN}
    ran = {**result, "links": links}
    turn_errors = _errors(404, 409, 413, 415, 422)
    # A 409 refuses before the turn (a confirmation not waiting) or ends a turn that ran.
    refused_or_failed = _ok(_REASONS[409], {"anyOf": [_ref("RunResult"), _ref("Error")]})
    health = _operation("health", "Liveness", {"200": _ok("Up.", _ref("Health"))})
    return {
        "/health": {"get": {**health, "security": []}},
        "/apps": {
            "get": _operation(
                "listApps", "The app this server serves", {"200": _ok("App names.", apps)}
            )
        },
        **_session_paths(app),
        "/run": {
            "post": _operation(
                "run",
                "Run one turn; answer with its events",
                {
                    "200": ran,
                    **{str(c): result for c in (429, 500, 502)},
                    **turn_errors,
                    "409": refused_or_failed,
                },
                turn_body,
            )
        },
        "/run_sse": {
            "post": _operation(
                "runSse",
                "Run one turn, streaming its events (SSE)",
                {"200": _STREAM, **turn_errors},
                turn_body,
            )
        },
    }


def openapi_spec(
    app_name: str, limits: ServerLimits, *, auth: bool, priced: bool = True
) -> dict[str, Any]:
    """The OpenAPI document for a server of ``app_name`` under ``limits``.

    ``priced``: every model of the agent has a known price, so a request may
    set a cost limit (without one, ``usage_limits.max_cost`` is left out).
    """
    paths = _paths(app_name)
    spec: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": f"steadyflow: {app_name}",
            "version": "1",
            "description": "Sessions and turns of one steadyflow agent.",
        },
        "paths": paths,
        "components": {"schemas": _schemas(app_name, limits, priced)},
    }
    if auth:
        spec["components"]["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
        spec["security"] = [{"bearer": []}]
        for path, item in paths.items():
            for key, operation in item.items():
                if key != "parameters" and path != "/health":
                    operation["responses"].update(_errors(401))
    return spec
