"""``LlmRequest`` to Anthropic Messages parameters, and answers back.

Anthropic wants strictly alternating ``user``/``assistant`` messages, tool
results first in the user message that follows the ``tool_use`` blocks, no
empty text blocks, and an explicit ``max_tokens``; this module enforces all
of that so the adapter only moves data.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from ..errors import ConfigurationError
from ..types import Content, FunctionCall, Part, UsageMetadata
from ._http import finish_fields
from .llm_request import LlmRequest
from .llm_response import LlmResponse

__all__ = ["DEFAULT_MAX_TOKENS", "build_params", "response_from_blocks", "usage_from"]

DEFAULT_MAX_TOKENS = 4096
"""``max_tokens`` sent when the request sets no ``max_output_tokens`` (Anthropic requires one)."""

_FINISH = {
    "end_turn": "STOP",
    "stop_sequence": "STOP",
    "tool_use": "STOP",
    "pause_turn": "STOP",
    "max_tokens": "MAX_TOKENS",
    "model_context_window_exceeded": "MAX_TOKENS",
    "refusal": "SAFETY",
}


def finish_reason(raw: str | None) -> str | None:
    """Anthropic's stop reason in the project's vocabulary."""
    if raw is None:
        return None
    return _FINISH.get(raw, raw.upper())


def _block(part: Part) -> dict[str, Any] | None:
    if part.thought:
        return None
    if part.text:
        return {"type": "text", "text": part.text}
    if part.function_call is not None:
        call = part.function_call
        return {
            "type": "tool_use",
            "id": call.id or f"toolu_{call.name}",
            "name": call.name,
            "input": call.args,
        }
    if part.function_response is not None:
        result = part.function_response
        return {
            "type": "tool_result",
            "tool_use_id": result.id or f"toolu_{result.name}",
            "content": json.dumps(result.response),
        }
    if part.inline_data is not None:
        return _media(part.inline_data.mime_type, part.inline_data.data)
    return None


def _media(mime_type: str, data: bytes) -> dict[str, Any]:
    source = {"type": "base64", "media_type": mime_type, "data": base64.b64encode(data).decode()}
    if mime_type.startswith("image/"):
        return {"type": "image", "source": source}
    if mime_type == "application/pdf":
        return {"type": "document", "source": source}
    raise ConfigurationError(
        f"the Anthropic adapter can send images and PDFs inline, not {mime_type!r}"
    )


def messages_from(contents: list[Content]) -> list[dict[str, Any]]:
    """Alternating messages; tool results lead their user message."""
    messages: list[dict[str, Any]] = []
    for content in contents:
        role = "assistant" if content.role == "model" else "user"
        blocks = [b for b in (_block(p) for p in content.parts) if b is not None]
        if not blocks:
            continue
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].extend(blocks)
        else:
            messages.append({"role": role, "content": blocks})
    for message in messages:
        if message["role"] == "user":
            message["content"].sort(key=lambda b: b["type"] != "tool_result")
    return messages


def build_params(request: LlmRequest, model: str) -> dict[str, Any]:
    """Keyword arguments for ``messages.create`` (without ``stream``).

    The Messages API takes no sampling parameters (``temperature``,
    ``top_p``, ``top_k``) and no ``seed``: those settings are not sent.
    ``response_schema`` becomes ``output_config.format`` (structured output).
    """
    config = request.config
    params: dict[str, Any] = {
        "model": model,
        "max_tokens": config.max_output_tokens or DEFAULT_MAX_TOKENS,
        "messages": messages_from(request.contents),
    }
    if config.system_instruction:
        params["system"] = config.system_instruction
    if config.response_schema is not None:
        schema = {"type": "json_schema", "schema": config.response_schema}
        params["output_config"] = {"format": schema}
    if config.tools:
        params["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in config.tools
        ]
    if config.stop_sequences:
        params["stop_sequences"] = list(config.stop_sequences)
    return params


def usage_from(input_usage: Any, output_tokens: int | None) -> UsageMetadata | None:
    """Usage with cache reads and writes counted as input (cache reads also reported)."""
    if input_usage is None and output_tokens is None:
        return None
    cached = getattr(input_usage, "cache_read_input_tokens", None) or 0
    created = getattr(input_usage, "cache_creation_input_tokens", None) or 0
    inputs = (getattr(input_usage, "input_tokens", None) or 0) + cached + created
    outputs = output_tokens or 0
    return UsageMetadata(
        input_tokens=inputs,
        output_tokens=outputs,
        total_tokens=inputs + outputs,
        cached_input_tokens=cached or None,
    )


def response_from_blocks(
    blocks: list[dict[str, Any]],
    stop_reason: str | None,
    usage: UsageMetadata | None,
    model_version: str | None,
) -> LlmResponse:
    """A complete response from block dicts (``text``/``thinking``/``tool_use``).

    A ``malformed_tool_use`` block (streamed arguments that are not JSON)
    sets ``error_code`` to ``MALFORMED_FUNCTION_CALL``.
    """
    parts: list[Part] = []
    malformed = [b.get("name", "?") for b in blocks if b.get("type") == "malformed_tool_use"]
    for block in blocks:
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            parts.append(Part(text=block["text"]))
        elif kind == "thinking" and block.get("thinking"):
            parts.append(Part(text=block["thinking"], thought=True))
        elif kind == "tool_use":
            call = FunctionCall(
                id=block.get("id"), name=block["name"], args=block.get("input") or {}
            )
            parts.append(Part(function_call=call))
    fields = finish_fields(finish_reason(stop_reason), has_content=bool(parts))
    if malformed:
        fields["error_code"] = "MALFORMED_FUNCTION_CALL"
        fields["error_message"] = f"arguments of {', '.join(malformed)} are not a JSON object"
    content = Content(role="model", parts=parts) if parts else None
    return LlmResponse(content=content, usage_metadata=usage, model_version=model_version, **fields)
