"""One Gemini answer from its chunks: parts merged, signatures kept, the end checked.

A streamed answer arrives as many ``GenerateContentResponse`` chunks; a
non-streamed one is a single chunk. Both go through ``complete`` so they give
the same ``LlmResponse`` (parts, usage, ids). An answer whose last chunk never
came (no ``finishReason`` anywhere and no blocked prompt) is not an answer:
it is a broken stream, and the retry policy decides what to do with it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from google.genai import types as gt

from ..errors import ModelConnectionError, ModelResponseError
from ..types import Content, Part, UsageMetadata
from ._gemini_wire import PROVIDER, enum_name, parts_from, usage_from
from ._http import finish_fields
from .llm_response import LlmResponse

__all__ = ["aggregate", "complete", "merge_parts"]


def merge_parts(parts: list[Part]) -> list[Part]:
    """Consecutive text pieces of the same kind as one part, each signature kept.

    Streamed text comes in pieces and Gemini puts the signature on the last
    piece (sometimes an empty one); the merged part carries it, as the
    non-streamed answer's single part would. Two signed pieces stay apart.
    """
    merged: list[Part] = []
    for part in parts:
        previous = merged[-1] if merged else None
        if (
            previous is not None
            and part.text is not None
            and previous.text is not None
            and part.thought == previous.thought
            and (part.thought_signature is None or previous.thought_signature is None)
        ):
            signed = previous if previous.thought_signature is not None else part
            merged[-1] = Part(
                text=previous.text + part.text,
                thought=part.thought,
                thought_signature=signed.thought_signature,
                provider_data=signed.provider_data,
            )
        else:
            merged.append(part)
    return merged


def complete(chunks: list[gt.GenerateContentResponse], model: str, stream: bool) -> LlmResponse:
    """The complete response from every chunk of one answer (one when not streamed).

    Raises:
        ModelConnectionError: a stream ended before its ``finishReason``.
        ModelResponseError: a non-streamed body had neither a finish nor a
            blocked prompt (not an answer).
    """
    parts: list[Part] = []
    finish: str | None = None
    block: str | None = None
    usage: Any = None
    version: str | None = None
    response_id: str | None = None
    grounding: dict[str, Any] | None = None
    for chunk in chunks:
        candidate = chunk.candidates[0] if chunk.candidates else None
        if candidate is not None:
            parts += parts_from(candidate.content, model)
            finish = enum_name(candidate.finish_reason) or finish
            if candidate.grounding_metadata is not None:
                grounding = candidate.grounding_metadata.model_dump(
                    mode="json", by_alias=True, exclude_none=True
                )
        if chunk.prompt_feedback is not None and chunk.prompt_feedback.block_reason is not None:
            block = enum_name(chunk.prompt_feedback.block_reason)
        usage = chunk.usage_metadata or usage
        version = chunk.model_version or version
        response_id = chunk.response_id or response_id
    if finish is None and block is None:
        _unfinished(model, stream, len(chunks))
    extra = {"response_id": response_id, "grounding_metadata": grounding}
    return _response(merge_parts(parts), finish, block, usage_from(usage), version, extra)


def _unfinished(model: str, stream: bool, chunks: int) -> None:
    where = f"{PROVIDER} model {model!r}"
    if stream:
        raise ModelConnectionError(
            f"{where}: the stream ended after {chunks} chunk(s) without a finishReason",
            provider=PROVIDER,
        )
    raise ModelResponseError(
        f"{where} sent an answer with no finishReason and no blocked prompt", provider=PROVIDER
    )


def _response(
    parts: list[Part],
    finish: str | None,
    block_reason: str | None,
    usage: UsageMetadata | None,
    model_version: str | None,
    extra: dict[str, Any],
) -> LlmResponse:
    """A complete response; a blocked prompt or an unusable finish sets ``error_code``."""
    content = Content(role="model", parts=parts) if parts else None
    if block_reason is not None and content is None:
        return LlmResponse(
            error_code=block_reason,
            error_message=f"the prompt was blocked ({block_reason})",
            usage_metadata=usage,
            model_version=model_version,
            **extra,
        )
    fields = finish_fields(finish, has_content=content is not None)
    return LlmResponse(
        content=content, usage_metadata=usage, model_version=model_version, **fields, **extra
    )


async def aggregate(chunks: Any, model: str) -> AsyncIterator[LlmResponse]:
    """Partial responses for text deltas, then the complete aggregate."""
    seen: list[gt.GenerateContentResponse] = []
    async for chunk in chunks:
        seen.append(chunk)
        candidate = chunk.candidates[0] if chunk.candidates else None
        content = candidate.content if candidate is not None else None
        parts: list[gt.Part] = (content.parts if content else None) or []
        text = "".join(p.text for p in parts if p.text and not p.thought)
        if text:
            yield LlmResponse(content=Content.from_text(text, role="model"), partial=True)
    yield complete(seen, model, stream=True)
