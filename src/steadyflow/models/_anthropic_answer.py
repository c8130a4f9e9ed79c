"""Anthropic Messages answers to ``LlmResponse``: blocks, citations, usage.

A non-streamed ``message`` and the blocks a stream assembles go through the
same functions, so both modes give the same parts and the same usage for the
same answer. Thinking blocks keep their ``signature`` (as bytes on
``Part.thought_signature``) and ``redacted_thinking`` blocks their payload
(``ProviderData.data``), both marked as issued by the adapter's model, so
``_anthropic_wire`` can send them back unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._json import is_object
from ..types import Citation, Content, FunctionCall, Part, ProviderData, UsageMetadata
from ._http import finish_fields
from ._usage import read_counts
from .llm_response import LlmResponse

__all__ = ["Answer", "citation_from", "finish_reason", "response_from", "usage_from"]

_FINISH = {
    "end_turn": "STOP",
    "stop_sequence": "STOP",
    "tool_use": "STOP",
    "pause_turn": "STOP",
    "max_tokens": "MAX_TOKENS",
    "model_context_window_exceeded": "MAX_TOKENS",
    "refusal": "SAFETY",
}

# Anthropic's location fields under the provider-neutral Citation names.
_CITATION_FIELDS = {
    "document_title": "title",
    "start_char_index": "start_index",
    "end_char_index": "end_index",
    "start_page_number": "start_index",
    "end_page_number": "end_index",
    "start_block_index": "start_index",
    "end_block_index": "end_index",
    "document_index": "source_index",
    "search_result_index": "source_index",
}
_CITATION_KEPT = ("type", "cited_text", "title", "url")


def finish_reason(raw: str | None) -> str | None:
    """Anthropic's stop reason in the project's vocabulary."""
    if raw is None:
        return None
    return _FINISH.get(raw, raw.upper())


def citation_from(raw: Mapping[str, Any]) -> Citation:
    """One ``citations`` entry of a text block; fields without a name of their own in ``data``."""
    fields: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in raw.items():
        if key in _CITATION_KEPT:
            fields[key] = value
        elif key in _CITATION_FIELDS:
            fields[_CITATION_FIELDS[key]] = value
        elif value is not None:
            extra[key] = value
    return Citation(**fields, data=extra)


def usage_from(usage: Mapping[str, Any] | None, provider: str) -> UsageMetadata | None:
    """Usage with cache reads and writes inside ``input_tokens`` (see ``UsageMetadata``).

    Anthropic's ``input_tokens`` excludes the cache: the input is the sum of
    ``input_tokens``, ``cache_read_input_tokens`` and
    ``cache_creation_input_tokens``. ``output_tokens_details.thinking_tokens``
    is the reasoning count. Invalid counts make it None (``_usage``; the
    warning names ``provider``).
    """
    if not usage:
        return None
    details: Any = usage.get("output_tokens_details")
    counts = read_counts(
        provider,
        {
            "input_tokens": usage.get("input_tokens"),
            "output_tokens": usage.get("output_tokens"),
            "cache_read_input_tokens": usage.get("cache_read_input_tokens"),
            "cache_creation_input_tokens": usage.get("cache_creation_input_tokens"),
            "thinking_tokens": details.get("thinking_tokens") if is_object(details) else None,
        },
    )
    if counts is None:
        return None
    cached, written = counts["cache_read_input_tokens"], counts["cache_creation_input_tokens"]
    inputs = (counts["input_tokens"] or 0) + (cached or 0) + (written or 0)
    outputs = counts["output_tokens"] or 0
    return UsageMetadata(
        input_tokens=inputs,
        output_tokens=outputs,
        total_tokens=inputs + outputs,
        cached_input_tokens=cached,
        cache_write_tokens=written,
        reasoning_tokens=counts["thinking_tokens"],
    )


@dataclass
class Answer:
    """What one Messages answer is made of, whichever mode delivered it.

    Attributes:
        blocks: content blocks as dicts (``text``/``thinking``/
            ``redacted_thinking``/``tool_use``; ``malformed_tool_use`` for
            streamed arguments that are not JSON).
        usage: the final usage fields as Anthropic sent them.
        stop_reason: Anthropic's stop reason.
        response_id: the message id.
        model_version: the model that answered, as the API names it.
    """

    blocks: list[dict[str, Any]]
    usage: dict[str, Any]
    stop_reason: str | None = None
    response_id: str | None = None
    model_version: str | None = None


def _part(block: Mapping[str, Any], issuer: ProviderData) -> Part | None:
    kind = block.get("type")
    if kind == "text" and block.get("text"):
        raw_citations: list[Any] = block.get("citations") or []
        citations = [citation_from(c) for c in raw_citations]
        return Part(text=block["text"], citations=citations or None)
    if kind == "thinking":
        signature = block.get("signature")
        if not signature and not block.get("thinking"):
            return None
        return Part(
            text=block.get("thinking") or "",
            thought=True,
            thought_signature=signature.encode() if signature else None,
            provider_data=issuer if signature else None,
        )
    if kind == "redacted_thinking":
        data = {"type": "redacted_thinking", "data": block.get("data")}
        return Part(thought=True, provider_data=issuer.model_copy(update={"data": data}))
    if kind == "tool_use":
        call = FunctionCall(id=block.get("id"), name=block["name"], args=block.get("input") or {})
        return Part(function_call=call)
    return None  # server tool blocks and empty text are not parts


def response_from(answer: Answer, provider: str, model: str) -> LlmResponse:
    """The complete response; ``model`` is the adapter's model name (the issuer of signatures).

    A ``malformed_tool_use`` block sets ``error_code`` to ``MALFORMED_FUNCTION_CALL``.
    """
    issuer = ProviderData(provider=provider, model=model)
    parts = [p for p in (_part(b, issuer) for b in answer.blocks) if p is not None]
    malformed = [b.get("name", "?") for b in answer.blocks if b.get("type") == "malformed_tool_use"]
    fields = finish_fields(finish_reason(answer.stop_reason), has_content=bool(parts))
    if malformed:
        fields["error_code"] = "MALFORMED_FUNCTION_CALL"
        fields["error_message"] = f"arguments of {', '.join(malformed)} are not a JSON object"
    return LlmResponse(
        content=Content(role="model", parts=parts) if parts else None,
        usage_metadata=usage_from(answer.usage, provider),
        model_version=answer.model_version,
        response_id=answer.response_id,
        service_tier=answer.usage.get("service_tier"),
        **fields,
    )
