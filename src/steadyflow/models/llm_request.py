"""``LlmRequest``: everything one model call sends, rebuilt on every step."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .._empty import list_of
from ..types import Content, FunctionDeclaration, GenerateContentConfig

__all__ = ["LlmRequest"]


class LlmRequest(BaseModel):
    """One model call's input: the model name, the contents and the config.

    Request processors build it from the session on every step. Dump it with
    ``request.model_dump_json(indent=2)`` when a model seems to have forgotten
    something: it is exactly what the adapter converts for the provider.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    model: str | None = None
    contents: list[Content] = Field(default_factory=list_of(Content))
    config: GenerateContentConfig = Field(default_factory=GenerateContentConfig)

    def append_instructions(self, instructions: list[str]) -> None:
        """Add paragraphs to the system instruction."""
        # all() first: filter() and its iterator cost more than the join, on every step
        joined = "\n\n".join(instructions if all(instructions) else filter(None, instructions))
        if not joined:
            return
        config = self.config
        existing = config.system_instruction
        config.system_instruction = f"{existing}\n\n{joined}" if existing else joined

    def append_tools(self, declarations: list[FunctionDeclaration]) -> None:
        """Declare more tools to the model."""
        self.config.tools.extend(declarations)

    def set_output_schema(self, schema: dict[str, Any]) -> None:
        """Ask the model for JSON matching ``schema``."""
        self.config.response_schema = schema
        self.config.response_mime_type = "application/json"

    def tool_names(self) -> list[str]:
        """Names of the declared tools, in order."""
        return [t.name for t in self.config.tools]
