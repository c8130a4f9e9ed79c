"""The emulator's provider-neutral view of a request and of an answer.

Each wire format (OpenAI, Anthropic, Gemini) parses its request body into an
``EmulatedRequest`` and renders a ``Reply`` back in its own shape, so scripts
and responders are written once and work against every provider.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

if TYPE_CHECKING:
    from ._faults import Fault

__all__ = [
    "EmulatedRequest",
    "Finish",
    "Reply",
    "Responder",
    "ScriptItem",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "Turn",
    "Usage",
    "as_reply",
]

Finish = Literal["stop", "length", "safety"]

_ids = itertools.count(1)


def next_id(prefix: str) -> str:
    """A fresh id for a message or a tool call (unique within the process)."""
    return f"{prefix}{next(_ids):06d}"


@dataclass(frozen=True)
class ToolCall:
    """A function call the emulated model makes. ``id`` is generated when None."""

    name: str
    args: dict[str, Any] = field(default_factory=lambda: {})
    id: str | None = None


@dataclass(frozen=True)
class Usage:
    """Token counts reported with an answer."""

    input_tokens: int
    output_tokens: int

    @property
    def total_tokens(self) -> int:
        """Input plus output."""
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class Reply:
    """One answer of the emulated model.

    Attributes:
        text: the answer's text ("" for a pure function-call answer).
        tool_calls: function calls, several for parallel calls.
        chunks: how ``text`` is split when streamed; by default in words.
        finish: why the model stopped: ``stop``, ``length`` or ``safety``.
        usage: token counts; by default estimated from the request and answer.
    """

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    chunks: tuple[str, ...] | None = None
    finish: Finish = "stop"
    usage: Usage | None = None

    @classmethod
    def streamed(cls, *chunks: str, **fields: Any) -> Reply:
        """A text answer streamed in exactly these chunks."""
        return cls(text="".join(chunks), chunks=tuple(chunks), **fields)

    @classmethod
    def calls(cls, *calls: ToolCall) -> Reply:
        """A function-call answer (parallel when several)."""
        return cls(tool_calls=tuple(calls))

    def text_chunks(self) -> list[str]:
        """The pieces the text is streamed in (empty when there is no text)."""
        if self.chunks is not None:
            return [c for c in self.chunks if c]
        return re.findall(r"\S+\s*|\s+", self.text)

    def usage_for(self, request: EmulatedRequest) -> Usage:
        """The usage to report: the given one, or a rough estimate."""
        if self.usage is not None:
            return self.usage
        prompt = len(request.system) + sum(len(t.text) for t in request.turns)
        prompt += sum(len(json.dumps(r.response)) for t in request.turns for r in t.results)
        answer = len(self.text) + sum(len(json.dumps(c.args)) + 8 for c in self.tool_calls)
        return Usage(input_tokens=max(1, prompt // 4), output_tokens=max(1, answer // 4))


@dataclass(frozen=True)
class ToolSpec:
    """A tool the request declared: name, description and JSON schema."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=lambda: {})


@dataclass(frozen=True)
class ToolResult:
    """A function result sent back to the model."""

    name: str
    response: Any
    id: str | None = None


@dataclass
class Turn:
    """One message of the conversation: ``user`` or ``model``."""

    role: Literal["user", "model"]
    text: str = ""
    calls: list[ToolCall] = field(default_factory=lambda: [])
    results: list[ToolResult] = field(default_factory=lambda: [])


@dataclass
class EmulatedRequest:
    """A provider request as the emulator understood it.

    Attributes:
        provider: ``openai``, ``openai-responses``, ``anthropic`` or ``gemini``; on a
            cloud's address ``azure``, ``vertex``, ``vertex-anthropic`` or ``bedrock``.
        number: the request's 1-based number at this provider's endpoint.
        model: the model name the client asked for.
        stream: whether the client asked for SSE.
        system: the system instruction ("" when none).
        turns: the conversation, oldest first.
        tools: the declared tools.
        headers: the HTTP request headers, names lower-cased.
        body: the parsed JSON body.
        path: the URL path the client addressed (a cloud's deployment, project, region).
        query: the URL's query parameters (Azure's ``api-version``).
        fault: the fault injected into this request's answer, if any.
    """

    provider: str
    number: int
    model: str
    stream: bool
    system: str = ""
    turns: list[Turn] = field(default_factory=lambda: [])
    tools: list[ToolSpec] = field(default_factory=lambda: [])
    headers: dict[str, str] = field(default_factory=lambda: {})
    body: dict[str, Any] = field(default_factory=lambda: {})
    path: str = ""
    query: dict[str, list[str]] = field(default_factory=lambda: {})
    fault: Fault | None = None

    @property
    def last(self) -> Turn | None:
        """The newest turn, if any."""
        return self.turns[-1] if self.turns else None

    @property
    def last_user_text(self) -> str:
        """The text of the newest user turn that has text."""
        for turn in reversed(self.turns):
            if turn.role == "user" and turn.text:
                return turn.text
        return ""


ScriptItem: TypeAlias = str | ToolCall | Sequence[ToolCall] | Reply
"""One scripted answer: text, a tool call, parallel tool calls, or a full ``Reply``."""
Responder: TypeAlias = Callable[[EmulatedRequest], ScriptItem]
"""Computes the answer to a request (instead of a script)."""


def as_reply(item: ScriptItem) -> Reply:
    """Normalize a script item (text, a call, calls or a ``Reply``) to a ``Reply``."""
    if isinstance(item, Reply):
        return item
    if isinstance(item, str):
        return Reply(text=item)
    if isinstance(item, ToolCall):
        return Reply(tool_calls=(item,))
    calls = tuple(item)
    if not all(isinstance(c, ToolCall) for c in calls):
        raise TypeError(f"not a script item: {item!r}")
    return Reply(tool_calls=calls)
