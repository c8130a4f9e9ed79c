"""Request and response bodies of the HTTP API, as pydantic models.

The same models validate requests and generate the OpenAPI spec, so the
spec cannot drift from what the server accepts. Unknown fields are refused
(a typo such as ``max_llm_call`` is a 422, not a silently ignored option).
"""

from __future__ import annotations

import base64
import json
import math
import re
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .._json import is_array, is_object
from ..events import Event
from ..types import Content
from ._errors import ApiError, FieldError

__all__ = [
    "BASE64_PATTERN",
    "ID_PATTERN",
    "CreateSessionRequest",
    "Health",
    "RunOptions",
    "RunRequest",
    "RunResult",
    "SessionDetail",
    "SessionSummary",
    "UsageLimitOptions",
    "check_id",
    "is_valid_id",
    "parse_body",
]

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$"
"""App names, user ids and session ids: 1-128 characters, no slash or space."""

_ID = re.compile(ID_PATTERN)

M = TypeVar("M", bound=BaseModel)

BASE64_PATTERN = (
    r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$"
)
"""Canonical, padded standard base64: the only form inline bytes are accepted in."""

_BASE64 = re.compile(BASE64_PATTERN)

_NUL_MESSAGE = "must not contain NUL (\\u0000) characters: PostgreSQL cannot store them"


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UsageLimitOptions(_Body):
    """A request's usage limits for its invocation, at most the operator's ceilings."""

    max_input_tokens: int | None = Field(
        default=None, ge=0, description="Input tokens the invocation may use."
    )
    max_output_tokens: int | None = Field(
        default=None, ge=0, description="Output tokens the invocation may use."
    )
    max_total_tokens: int | None = Field(
        default=None, ge=0, description="Input plus output tokens the invocation may use."
    )
    max_cost: float | None = Field(
        default=None, ge=0, description="US dollars the invocation may spend."
    )

    @field_validator("max_input_tokens", "max_output_tokens", "max_total_tokens", mode="before")
    @classmethod
    def _whole_float(cls, value: Any) -> Any:
        return _whole(value)


class RunOptions(_Body):
    """The ``RunConfig`` fields a request may set, within the operator's limits."""

    max_llm_calls: int | None = Field(
        default=None, description="Provider attempts allowed in this turn, retries included."
    )
    streaming_mode: Literal["none", "sse"] | None = Field(
        default=None, description="`sse` streams partial events; the default depends on the route."
    )
    retry_max_attempts: int | None = Field(
        default=None, description="Attempts per model call, the first included (1 = no retry)."
    )
    on_pending_confirmation: Literal["supersede", "raise"] | None = Field(
        default=None,
        description=(
            "A plain message while confirmation requests wait: `supersede` (default) declines "
            "them and runs the message; `raise` answers 409 `confirmation_pending`."
        ),
    )
    usage_limits: UsageLimitOptions | None = Field(
        default=None,
        description="Token and cost limits of this invocation; a limit left out is the "
        "server's default, else its ceiling.",
    )

    @field_validator("max_llm_calls", "retry_max_attempts", mode="before")
    @classmethod
    def _whole_float(cls, value: Any) -> Any:
        return _whole(value)


def _whole(value: Any) -> Any:
    """``4.0`` is an integer in JSON Schema; strict pydantic would refuse it."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


class CreateSessionRequest(_Body):
    """Body of ``POST .../sessions`` (optional)."""

    session_id: str | None = Field(default=None, pattern=ID_PATTERN)
    state: dict[str, Any] | None = None


class RunRequest(_Body):
    """Body of ``POST /run`` and ``POST /run_sse``: one turn's message."""

    app_name: str = Field(pattern=ID_PATTERN)
    user_id: str = Field(pattern=ID_PATTERN)
    session_id: str = Field(pattern=ID_PATTERN)
    new_message: Content | str = Field(
        description="The user's message: a Content with role `user`, or plain text."
    )
    run_config: RunOptions | None = None

    @field_validator("new_message", mode="before")
    @classmethod
    def _decode_base64(cls, value: Any) -> Any:
        """Decode inline bytes, which must be canonical, padded standard base64.

        Bodies are validated strictly (``"1"`` is not an int); strict pydantic
        takes no string for bytes, so the strings are decoded here, exactly as
        the spec's pattern says.
        """
        parts = value.get("parts") if is_object(value) else None
        if not is_array(parts):
            return value
        decoded: list[Any] = []
        for index, part in enumerate(parts):
            blob = part.get("inline_data") if is_object(part) else None
            if is_object(blob) and isinstance(data := blob.get("data"), str):
                if not _BASE64.fullmatch(data):
                    raise ValueError(f"parts.{index}.inline_data.data must be padded base64")
                part = {**part, "inline_data": {**blob, "data": base64.b64decode(data)}}
            decoded.append(part)
        return {**value, "parts": decoded}

    def message(self) -> Content:
        """The message as ``Content``, checked for what a user may send."""
        if isinstance(self.new_message, str):
            if not self.new_message:
                raise ApiError.invalid([FieldError("new_message", "must not be empty")])
            return Content.from_text(self.new_message)
        content = self.new_message
        errors: list[FieldError] = []
        if content.role != "user":
            errors.append(FieldError("new_message.role", f"must be 'user', got {content.role!r}"))
        if not content.parts:
            errors.append(FieldError("new_message.parts", "must hold at least one part"))
        for index, part in enumerate(content.parts):
            kinds = [k for k in ("text", "function_response", "inline_data") if getattr(part, k)]
            if part.function_call is not None or len(kinds) != 1:
                errors.append(
                    FieldError(
                        f"new_message.parts.{index}",
                        "must hold exactly one of text, function_response, inline_data",
                    )
                )
        if errors:
            raise ApiError.invalid(errors)
        return content


class ResumeRequest(_Body):
    """Body of ``POST .../sessions/{session}/resume`` (optional): which invocation, and how."""

    invocation_id: str | None = Field(
        default=None,
        pattern=ID_PATTERN,
        description="The invocation to resume (default: the session's latest unfinished one).",
    )
    run_config: RunOptions | None = Field(
        default=None,
        description="Settings for the rest of the turn; max_llm_calls defaults to the record's.",
    )


class SessionSummary(BaseModel):
    """A session without its events (what listings return)."""

    id: str
    app_name: str
    user_id: str
    state: dict[str, Any]
    last_update_time: float
    revision: int = Field(description="How many events the session holds.")
    first_message: str | None = Field(
        default=None, description="The first user message's text (in listings)."
    )
    last_status: str | None = Field(
        default=None, description="The status of the session's last invocation (in listings)."
    )


class SessionDetail(SessionSummary):
    """A session with its events (the conversation; invocation records are listed apart)."""

    events: list[Event]


class RunResult(BaseModel):
    """What ``POST /run`` answers: the turn's events and, if it failed, why."""

    events: list[Event]
    error: dict[str, Any] | None = Field(
        default=None, description="type, message, status_code (and provider_status)."
    )


class Health(BaseModel):
    """Body of ``GET /health``."""

    status: Literal["ok"] = "ok"
    version: str


def is_valid_id(value: str) -> bool:
    """Whether ``value`` is a valid app name, user id or session id."""
    return _ID.fullmatch(value) is not None


def check_id(name: str, value: str) -> str:
    """``value`` if it is a valid id, else a 422 naming the path parameter ``name``."""
    if not is_valid_id(value):
        raise ApiError.invalid([FieldError(name, f"must match {ID_PATTERN}, got {value!r}")])
    return value


def parse_body(model: type[M], raw: bytes, *, optional: bool = False) -> M:
    """Validate a JSON body against ``model``; a 422 naming each bad field.

    An empty body is ``{}`` when ``optional``.
    """
    if not raw.strip():
        if optional:
            return model()
        raise ApiError.invalid([FieldError("body", "a JSON object is required")])
    try:
        data = json.loads(raw, parse_constant=_refuse_constant)  # pydantic would take NaN
    except RecursionError:
        raise ApiError.invalid([FieldError("body", "JSON nested too deeply")]) from None
    except ValueError as error:  # UnicodeDecodeError is a ValueError
        raise ApiError.invalid([FieldError("body", f"not valid JSON: {error}")]) from None
    unstorable = _find_unstorable(data)
    if unstorable is not None:
        raise ApiError.invalid([FieldError(unstorable[0] or "body", unstorable[1])])
    try:
        return model.model_validate_json(raw, strict=True)
    except ValidationError as error:
        raise ApiError.invalid(
            [
                FieldError(".".join(str(p) for p in e["loc"]) or "body", e["msg"])
                for e in error.errors(include_url=False)
            ]
        ) from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _find_unstorable(value: Any) -> tuple[str, str] | None:
    """The path of the first NUL-holding string (or key) or infinite number, and why.

    PostgreSQL cannot store NUL characters, and ``1e400`` parses as infinity,
    which JSON cannot carry back. Iterative: a body may nest as deep as the
    JSON parser allows.
    """
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, str) and "\x00" in node:
            return path, _NUL_MESSAGE
        if isinstance(node, float) and not math.isfinite(node):
            return path, "number out of range"
        if is_object(node):
            for key, item in node.items():
                where = f"{path}.{key}".lstrip(".")
                if "\x00" in key:
                    return where.replace("\x00", "\\u0000"), _NUL_MESSAGE
                stack.append((where, item))
        elif is_array(node):
            stack.extend((f"{path}.{i}".lstrip("."), item) for i, item in enumerate(node))
    return None
