"""What every emulated wire format provides: routing, parsing and rendering.

A dialect knows one provider's HTTP API: which paths it serves, how its
request body maps onto an ``EmulatedRequest``, and how a ``Reply`` or an
error looks in its JSON and SSE shapes. The server stays format-agnostic.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from ._faults import Fault
from ._model import EmulatedRequest, Reply

__all__ = ["Dialect", "Route", "SseEvent", "WireError", "sse"]


class WireError(Exception):
    """The request body is not valid for this API (answered with HTTP 400)."""


@dataclass(frozen=True)
class Route:
    """Where a request goes: the provider, the model in the path, streamed or not."""

    provider: str
    model: str | None = None
    stream: bool | None = None


@dataclass(frozen=True)
class SseEvent:
    """One SSE event on the wire; ``content`` marks text or call chunks.

    A ``break`` fault counts only content events, so "broken after the first
    chunk" always means the client has seen some of the answer.
    """

    data: bytes
    content: bool = False


def sse(data: Any, event: str | None = None, content: bool = False) -> SseEvent:
    """An SSE event carrying ``data`` as JSON (or a raw string)."""
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return SseEvent(f"{head}data: {payload}\n\n".encode(), content=content)


class Dialect(ABC):
    """One provider's HTTP API, as far as the emulator speaks it."""

    provider: str
    stream_content_type = "text/event-stream"
    """The media type of a streamed answer (Bedrock's is AWS's event stream, not SSE)."""

    @abstractmethod
    def route(self, method: str, path: str) -> Route | None:
        """The route for ``method path``, or None when this API does not serve it."""

    @abstractmethod
    def parse(self, body: dict[str, Any], request: EmulatedRequest) -> None:
        """Fill ``request`` (model, stream, system, turns, tools) from ``body``.

        Raises:
            WireError: when the body lacks what the real API requires.
        """

    @abstractmethod
    def render(self, reply: Reply, request: EmulatedRequest) -> dict[str, Any]:
        """The non-streamed JSON answer."""

    @abstractmethod
    def render_stream(self, reply: Reply, request: EmulatedRequest) -> list[SseEvent]:
        """The SSE events of a streamed answer, terminator included."""

    @abstractmethod
    def error_body(self, status: int, message: str, fault: Fault | None) -> dict[str, Any]:
        """The provider's JSON error shape for ``status``."""

    def error_headers(self, status: int) -> dict[str, str]:
        """Headers an error answer carries besides its body (none by default)."""
        return {}

    def wire_error_body(self, error: WireError) -> dict[str, Any]:
        """The 400 body for a request this API refuses; by default ``error_body``'s."""
        return self.error_body(400, str(error), None)

    def malformed_event(self) -> SseEvent:
        """An SSE event whose data is not JSON."""
        return SseEvent(b'data: {"this is": not json\n\n', content=True)
