"""Wire-like data shared by every layer: contents, parts, calls and configs.

These are the shapes a model sees and answers with. Every provider adapter
converts to and from them, the session stores them, and they serialize to
JSON so a user can dump the exact request a model received.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Blob",
    "Content",
    "FunctionCall",
    "FunctionDeclaration",
    "FunctionResponse",
    "GenerateContentConfig",
    "Part",
    "UsageMetadata",
]


class _Data(BaseModel):
    """Base for wire data: unknown fields are an error; bytes are base64 in JSON."""

    model_config = ConfigDict(
        extra="forbid", ser_json_bytes="base64", val_json_bytes="base64", defer_build=True
    )


class Blob(_Data):
    """Inline bytes with their MIME type (an image, audio, a PDF)."""

    mime_type: str
    data: bytes


class FunctionCall(_Data):
    """A model's request to run a tool.

    ``id`` is the provider's call id; the flow assigns a client-side id when the
    provider gives none, so a response can always be matched to its call.
    """

    id: str | None = None
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class FunctionResponse(_Data):
    """The result of a tool call, sent back to the model."""

    id: str | None = None
    name: str
    response: dict[str, Any] = Field(default_factory=dict)


class Part(_Data):
    """One piece of a message: exactly one of text, a call, a response, or bytes."""

    text: str | None = None
    thought: bool | None = None
    function_call: FunctionCall | None = None
    function_response: FunctionResponse | None = None
    inline_data: Blob | None = None

    @classmethod
    def from_text(cls, text: str) -> Part:
        """A text part."""
        return cls(text=text)

    @classmethod
    def from_function_call(
        cls, name: str, args: dict[str, Any] | None = None, id: str | None = None
    ) -> Part:
        """A function-call part."""
        return cls(function_call=FunctionCall(id=id, name=name, args=args or {}))

    @classmethod
    def from_function_response(
        cls, name: str, response: dict[str, Any], id: str | None = None
    ) -> Part:
        """A function-response part."""
        return cls(function_response=FunctionResponse(id=id, name=name, response=response))

    @classmethod
    def from_bytes(cls, data: bytes, mime_type: str) -> Part:
        """An inline-bytes part."""
        return cls(inline_data=Blob(mime_type=mime_type, data=data))


class Content(_Data):
    """A message: a role (``user`` or ``model``) and its parts."""

    role: str = "user"
    parts: list[Part] = Field(default_factory=list)

    @classmethod
    def from_text(cls, text: str, role: str = "user") -> Content:
        """A message holding one text part."""
        return cls(role=role, parts=[Part(text=text)])

    @classmethod
    def from_parts(cls, *parts: Part, role: str = "user") -> Content:
        """A message holding the given parts."""
        return cls(role=role, parts=list(parts))

    @property
    def text(self) -> str:
        """The concatenated text of the non-thought text parts ("" when none)."""
        return "".join(p.text for p in self.parts if p.text and not p.thought)


class UsageMetadata(_Data):
    """Token counts the provider reported for one model call."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cached_input_tokens: int | None = None


class FunctionDeclaration(_Data):
    """A tool as the model sees it: a name, a description and a JSON schema."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class GenerateContentConfig(_Data):
    """Generation settings, the system instruction and the declared tools.

    ``response_schema`` is a JSON schema; when set (by ``output_schema`` on the
    agent) ``response_mime_type`` is ``application/json``.
    """

    system_instruction: str | None = None
    tools: list[FunctionDeclaration] = Field(default_factory=list)
    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    max_output_tokens: int | None = None
    stop_sequences: list[str] | None = None
    seed: int | None = None
    response_mime_type: str | None = None
    response_schema: dict[str, Any] | None = None
    labels: dict[str, str] | None = None
