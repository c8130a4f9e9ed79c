"""``LlmResponse``: one answer (or one streamed piece of an answer) from a model."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from ..types import Content, UsageMetadata

__all__ = ["LlmResponse"]


class LlmResponse(BaseModel):
    """A model's answer.

    Under streaming, pieces with incremental text have ``partial=True`` and
    the last response is the complete aggregate (``partial`` false/None).
    ``error_code`` is set when the provider produced no usable answer (for
    example a safety block); the flow turns it into an error event.
    ``response_id`` is the provider's id for the answer, ``service_tier`` the
    tier that served it, ``grounding_metadata`` Gemini's grounding record
    (search queries, sources, supports) as the provider sent it; the flow
    copies all three onto the event.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    content: Content | None = None
    partial: bool | None = None
    turn_complete: bool | None = None
    finish_reason: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    usage_metadata: UsageMetadata | None = None
    custom_metadata: dict[str, Any] | None = None
    model_version: str | None = None
    response_id: str | None = None
    service_tier: str | None = None
    grounding_metadata: dict[str, Any] | None = None

    @classmethod
    def from_text(cls, text: str, **fields: Any) -> LlmResponse:
        """A complete response holding one text part from the model."""
        return cls(content=Content.from_text(text, role="model"), **fields)

    @property
    def text(self) -> str:
        """The response's text ("" when it has none)."""
        return self.content.text if self.content is not None else ""
