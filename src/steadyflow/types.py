"""Wire-like data shared by every layer: contents, parts, calls and configs.

These are the shapes a model sees and answers with. Every provider adapter
converts to and from them, the session stores them, and they serialize to
JSON so a user can dump the exact request a model received.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ._empty import list_of

__all__ = [
    "Blob",
    "Citation",
    "Content",
    "FunctionCall",
    "FunctionDeclaration",
    "FunctionResponse",
    "GenerateContentConfig",
    "Part",
    "ProviderData",
    "ThinkingConfig",
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


class Citation(_Data):
    """A source the model cited for a text part (Anthropic ``citations``).

    ``cited_text`` is the quoted passage; ``title``/``url`` name the source
    when it has them; ``start_index``/``end_index`` locate the passage in the
    source (characters, pages or blocks, as ``type`` says); ``source_index``
    is the cited document's position in the request. ``data`` keeps the
    provider's remaining fields as they came.
    """

    type: str
    cited_text: str | None = None
    title: str | None = None
    url: str | None = None
    start_index: int | None = None
    end_index: int | None = None
    source_index: int | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class ProviderData(_Data):
    """Opaque data a model issued with a part and requires back unchanged.

    ``provider`` and ``model`` name the issuer (``"gemini"``, ``"anthropic"``,
    ``"openai-responses"`` and the model name as the adapter sent it). An
    adapter sends a part's ``thought_signature`` and ``data`` back only to the
    same provider and model; for any other model it drops them (a signature is
    rejected by every model but its issuer). ``data`` holds what has no field
    of its own, for example Anthropic's ``redacted_thinking`` payload or an
    OpenAI reasoning item's id and encrypted content.
    """

    provider: str
    model: str
    data: dict[str, Any] = Field(default_factory=dict)


class Part(_Data):
    """One piece of a message: exactly one of text, a call, a response, or bytes.

    ``thought`` marks the model's reasoning (shown, never answered to).
    ``thought_signature`` is the opaque signature a model attaches to a part
    (Gemini's ``thoughtSignature``, the ``signature`` of an Anthropic thinking
    block); ``provider_data`` names who issued it. Both are stored with the
    event and returned only to the issuing model (see ``ProviderData``).
    ``citations`` lists the sources a text part cites.
    """

    text: str | None = None
    thought: bool | None = None
    function_call: FunctionCall | None = None
    function_response: FunctionResponse | None = None
    inline_data: Blob | None = None
    thought_signature: bytes | None = None
    provider_data: ProviderData | None = None
    citations: list[Citation] | None = None

    def has_payload(self) -> bool:
        """Whether the part carries text, a call, a response or bytes (not just opaque data)."""
        return (
            bool(self.text)
            or self.function_call is not None
            or self.function_response is not None
            or self.inline_data is not None
        )

    def issued_by(self, provider: str, model: str) -> bool:
        """Whether this part's opaque data (if any) came from ``provider``/``model``."""
        data = self.provider_data
        return data is not None and data.provider == provider and data.model == model

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
    parts: list[Part] = Field(default_factory=lambda: [])

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
        # A list, not a generator: join builds one anyway, and a generator is resumed per part.
        return "".join([p.text for p in self.parts if p.text and not p.thought])


class UsageMetadata(_Data):
    """Token counts the provider reported for one model call (one attempt).

    Every category is inside its parent count, whatever the provider's own
    convention, so costs add up without double counting:

    - ``input_tokens``: everything the model read, including
      ``cached_input_tokens`` (read from the prompt cache),
      ``cache_write_tokens`` (written to it) and ``tool_use_prompt_tokens``
      (the results of server-side tools, Gemini's ``toolUsePromptTokenCount``).
    - ``output_tokens``: everything the model wrote, including
      ``reasoning_tokens`` (thinking; OpenAI ``reasoning_tokens``, Gemini
      ``thoughtsTokenCount``).
    - ``total_tokens``: ``input_tokens + output_tokens``.

    A category the provider did not report is ``None``, not 0.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cached_input_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None
    tool_use_prompt_tokens: int | None = None


class ThinkingConfig(_Data):
    """Ask a model to reason before it answers, in one provider-neutral shape.

    ``budget_tokens`` caps the tokens spent on thinking; ``effort`` is a coarse
    level for models that take one. Set either or both: an adapter maps what
    its provider understands (Gemini ``thinking_config``: ``thinking_budget``
    / ``thinking_level``; Anthropic ``thinking``: ``budget_tokens``; OpenAI
    ``reasoning_effort``) and derives the other from the one given.
    ``include_thoughts`` asks for the thought text where the provider can
    return it (it arrives as parts with ``thought=True``).
    """

    budget_tokens: int | None = Field(default=None, ge=0)
    effort: Literal["minimal", "low", "medium", "high"] | None = None
    include_thoughts: bool = False


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
    tools: list[FunctionDeclaration] = Field(default_factory=list_of(FunctionDeclaration))
    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    max_output_tokens: int | None = None
    stop_sequences: list[str] | None = None
    seed: int | None = None
    response_mime_type: str | None = None
    response_schema: dict[str, Any] | None = None
    labels: dict[str, str] | None = None
    thinking: ThinkingConfig | None = None
