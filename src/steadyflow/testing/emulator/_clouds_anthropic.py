"""Claude on the clouds: Anthropic's Messages API on Vertex AI and Amazon Bedrock.

Both clouds take the Messages body with the model moved into the path and an
``anthropic_version`` naming the cloud's API version:

- Vertex AI: ``POST /v1/projects/{project}/locations/{region}/publishers/anthropic/``
  ``models/{model}:rawPredict`` (``:streamRawPredict`` streams SSE, as Anthropic's own API does);
  ``anthropic_version`` such as ``vertex-2023-10-16``. Vertex's own quota error is a
  ``google.rpc.Status`` with ``RESOURCE_EXHAUSTED``.
- Bedrock: ``POST /model/{model}/invoke`` (``/invoke-with-response-stream``
  streams AWS event-stream frames, each carrying one Messages event
  base64-encoded); ``anthropic_version`` such as ``bedrock-2023-05-31``. Errors are
  ``{"message": ...}`` with their exception name in ``x-amzn-ErrorType``
  (``ThrottlingException`` for 429).
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from ._anthropic import AnthropicDialect
from ._dialect import Route, SseEvent, WireError
from ._eventstream import event_message
from ._faults import Fault
from ._model import EmulatedRequest, Reply

__all__ = ["BedrockAnthropicDialect", "VertexAnthropicDialect"]

_VERTEX_PATH = re.compile(
    r"/v1/projects/(?P<project>[^/]+)/locations/(?P<region>[^/]+)"
    r"/publishers/anthropic/models/(?P<model>[^/:]+):(?P<method>rawPredict|streamRawPredict)"
)
_BEDROCK_PATH = re.compile(
    r"/model/(?P<model>[^/]+)/(?P<method>invoke|invoke-with-response-stream)"
)
_BEDROCK_ERRORS = {
    400: "ValidationException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    408: "ModelTimeoutException",
    424: "ModelErrorException",
    429: "ThrottlingException",
    500: "InternalServerException",
    503: "ServiceUnavailableException",
}


class _CloudAnthropicDialect(AnthropicDialect):
    """The Messages API with the model in the path and an ``anthropic_version`` in the body.

    The version is required but not pinned: SDK releases send different ones.
    """

    version = ""

    def parse(self, body: dict[str, Any], request: EmulatedRequest) -> None:
        """Check the cloud's body rules, then read it as a Messages request."""
        if "model" in body:
            raise WireError("model: Extra inputs are not permitted (the model is in the URL)")
        version = body.get("anthropic_version")
        if not isinstance(version, str) or not version:
            raise WireError(f"anthropic_version: Field required (e.g. {self.version!r})")
        if "stream" in body and self.provider == "bedrock":
            raise WireError("stream: Extra inputs are not permitted")
        messages = {k: v for k, v in body.items() if k != "anthropic_version"}
        super().parse({**messages, "model": request.model}, request)


class VertexAnthropicDialect(_CloudAnthropicDialect):
    """Claude at a Vertex AI project and region."""

    provider = "vertex-anthropic"
    version = "vertex-2023-10-16"

    def route(self, method: str, path: str) -> Route | None:
        """Serve ``POST .../publishers/anthropic/models/{model}:rawPredict`` and its stream."""
        match = _VERTEX_PATH.fullmatch(path)
        if method != "POST" or match is None:
            return None
        return Route(self.provider, match["model"], match["method"] == "streamRawPredict")

    def error_body(self, status: int, message: str, fault: Fault | None) -> dict[str, Any]:
        """Vertex's quota error (429) is Google's; the model's own errors are Anthropic's."""
        if status == 429:
            return {"error": {"code": 429, "message": message, "status": "RESOURCE_EXHAUSTED"}}
        return super().error_body(status, message, fault)


class BedrockAnthropicDialect(_CloudAnthropicDialect):
    """Claude on Amazon Bedrock's runtime API."""

    provider = "bedrock"
    version = "bedrock-2023-05-31"
    stream_content_type = "application/vnd.amazon.eventstream"

    def route(self, method: str, path: str) -> Route | None:
        """Serve ``POST /model/{model}/invoke`` and ``/invoke-with-response-stream``."""
        match = _BEDROCK_PATH.fullmatch(path)
        if method != "POST" or match is None:
            return None
        return Route(self.provider, match["model"], match["method"] != "invoke")

    def render_stream(self, reply: Reply, request: EmulatedRequest) -> list[SseEvent]:
        """The Messages events, each in an event-stream ``chunk`` frame."""
        return [
            SseEvent(_chunk(_sse_data(event)), content=event.content)
            for event in super().render_stream(reply, request)
        ]

    def error_body(self, status: int, message: str, fault: Fault | None) -> dict[str, Any]:
        """``{"message": ...}``, Bedrock's error body."""
        return {"message": message}

    def error_headers(self, status: int) -> dict[str, str]:
        """The exception's name in ``x-amzn-ErrorType``."""
        return {"x-amzn-errortype": _BEDROCK_ERRORS.get(status, "InternalServerException")}


def _sse_data(event: SseEvent) -> bytes:
    """The JSON of an SSE event's ``data:`` line."""
    for line in event.data.decode().splitlines():
        if line.startswith("data: "):
            return line.removeprefix("data: ").encode()
    raise ValueError(f"an SSE event without data: {event.data!r}")


def _chunk(data: bytes) -> bytes:
    payload = json.dumps({"bytes": base64.b64encode(data).decode()}).encode()
    headers = {
        ":event-type": "chunk",
        ":content-type": "application/json",
        ":message-type": "event",
    }
    return event_message(headers, payload)
