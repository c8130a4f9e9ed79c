"""Which exception of a Stainless-generated SDK means what, and in-stream error statuses.

``SdkErrors`` is the typed table one SDK fills in with its own classes (in
the style of httpx's ``map_httpcore_exceptions``), so the base adapter in
``_stainless`` maps every SDK the same way without reading an untyped module.
An error the server sends inside a 200 answer has no HTTP status of its own:
``stream_error_status`` reads the one its payload stands for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from .._json import is_mapping

__all__ = [
    "STREAM_ERROR_STATUS",
    "SdkErrors",
    "StatusError",
    "error_detail",
    "stream_error_status",
]

# Error ``type``/``code`` strings sent inside a 200 stream -> the HTTP status they stand for:
# Anthropic's documented error types, OpenAI's (Responses ``error`` codes too), Groq's
# and Bedrock's.
STREAM_ERROR_STATUS: Mapping[str, int] = {
    "invalid_request_error": 400,
    "invalid_prompt": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "rate_limit_exceeded": 429,
    "api_error": 500,
    "server_error": 500,
    "internal_server_error": 500,
    "service_unavailable": 503,
    "timeout_error": 504,
    "overloaded_error": 529,
    # Bedrock's exception frames inside its event stream, by their ``:exception-type``.
    "validationException": 400,
    "modelTimeoutException": 408,
    "throttlingException": 429,
    "internalServerException": 500,
    "modelStreamErrorException": 500,
    "serviceUnavailableException": 503,
}
_STATUS_KEYS = ("status_code", "status", "code")


class _Response(Protocol):
    @property
    def headers(self) -> Mapping[str, str]: ...


class StatusError(Protocol):
    """What the base reads from an SDK's ``APIStatusError``."""

    @property
    def status_code(self) -> int: ...
    @property
    def message(self) -> str: ...
    @property
    def body(self) -> object: ...
    @property
    def response(self) -> _Response: ...


@dataclass(frozen=True)
class SdkErrors:
    """One SDK's exception classes, by what they mean.

    Attributes:
        timeout: no answer in time (a subclass of ``connection`` in both SDKs).
        connection: no answer at all (refused, reset, cut).
        status: the server answered with an error status; or, with a 2xx
            status, sent an error event inside its stream (Anthropic).
        api: the base of everything the SDK raises about an answer; raised as
            itself for an ``error`` object inside a stream (OpenAI).
    """

    timeout: type[Exception]
    connection: type[Exception]
    status: type[StatusError]
    api: type[Exception]


def stream_error_status(body: object) -> int:
    """The HTTP status an error sent inside a 200 stream stands for.

    Read from the payload (or its ``error`` object): an explicit
    ``status_code``/``status``/``code`` between 400 and 599 first, then its
    ``type`` or ``code`` string by ``STREAM_ERROR_STATUS``; 500 when it says
    neither (the server failed mid-answer).
    """
    objects: list[Mapping[str, Any]] = [body] if is_mapping(body) else []
    if objects and is_mapping(inner := objects[0].get("error")):
        objects.insert(0, inner)
    for obj in objects:
        for key in _STATUS_KEYS:
            value = obj.get(key)
            if isinstance(value, str) and value.isdigit():
                value = int(value)
            if isinstance(value, int) and not isinstance(value, bool) and 400 <= value < 600:
                return value
    for obj in objects:
        for key in ("type", "code"):
            status = STREAM_ERROR_STATUS.get(str(obj.get(key)))
            if status is not None:
                return status
    return 500


def error_detail(error: StatusError) -> str:
    """The provider's message in a status error's body (``error.message``), else the SDK's."""
    body = error.body
    if is_mapping(body):
        inner = body.get("error")
        objects: tuple[Mapping[str, Any], ...] = (body, inner) if is_mapping(inner) else (body,)
        for obj in objects:
            message = obj.get("message")
            if isinstance(message, str) and message:
                return message
    return error.message
