"""Assemble a Messages SSE stream into the ``Answer`` a non-streamed call gives.

Text and thinking deltas are passed on as they come (the partial
responses); thinking text, signatures (``signature_delta``), citations (``citations_delta``) and
tool arguments (``input_json_delta``) are gathered per block. Usage is
cumulative: ``message_delta.usage`` carries the final counts, including
``input_tokens`` and the cache fields when server tools ran several
iterations, so each field keeps its last non-null value, starting from
``message_start``. A stream that ends without ``message_stop`` was cut: it
is a ``ModelConnectionError``, never an answer; the usage it reported so far
(billed all the same) is the error's ``usage``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from ..errors import ModelConnectionError
from ..types import Part
from ._anthropic_answer import Answer, usage_from
from ._http import parse_arguments

__all__ = ["assemble"]


def _merge_usage(usage: dict[str, Any], update: Any) -> None:
    for key, value in update.model_dump(warnings=False).items():  # checked by ``usage_from``
        if value is not None:
            usage[key] = value


def _delta(block: dict[str, Any], delta: Any, json_parts: list[str]) -> Part | None:
    """Apply one ``content_block_delta``; the text or thought piece to pass on, if any."""
    kind = delta.type
    if kind == "text_delta":
        block["text"] = (block.get("text") or "") + delta.text
        return Part(text=delta.text) if delta.text else None
    if kind == "thinking_delta":
        block["thinking"] = (block.get("thinking") or "") + delta.thinking
        return Part(text=delta.thinking, thought=True) if delta.thinking else None
    if kind == "input_json_delta":
        json_parts.append(delta.partial_json)
    elif kind == "signature_delta":
        block["signature"] = (block.get("signature") or "") + delta.signature
    elif kind == "citations_delta":
        citations: list[Any] = block.get("citations") or []
        block["citations"] = [*citations, delta.citation.model_dump()]
    return None


async def assemble(
    events: AsyncIterator[Any], answer: Answer, where: str
) -> AsyncGenerator[Part, None]:
    """Fill ``answer`` from ``events``, yielding each text and thinking delta as a part.

    ``where`` names the model in the error of a cut stream.

    Raises:
        ModelConnectionError: the stream ended before ``message_stop``.
    """
    blocks: dict[int, dict[str, Any]] = {}
    json_parts: dict[int, list[str]] = {}
    stopped = False
    async for event in events:
        kind = event.type
        if kind == "message_start":
            message = event.message
            answer.response_id, answer.model_version = message.id, message.model
            _merge_usage(answer.usage, message.usage)
        elif kind == "content_block_start":
            blocks[event.index] = event.content_block.model_dump()
        elif kind == "content_block_delta":
            block = blocks.setdefault(event.index, {"type": "text", "text": ""})
            piece = _delta(block, event.delta, json_parts.setdefault(event.index, []))
            if piece is not None:
                yield piece
        elif kind == "message_delta":
            answer.stop_reason = event.delta.stop_reason or answer.stop_reason
            _merge_usage(answer.usage, event.usage)
        elif kind == "message_stop":
            stopped = True
    if not stopped:
        raise ModelConnectionError(
            f"{where}: the stream ended before message_stop (a cut answer)",
            provider="anthropic",
            usage=usage_from(answer.usage, "anthropic"),
        )
    for index, pieces in json_parts.items():
        if not pieces:
            continue
        args = parse_arguments("".join(pieces))
        if args is None:
            blocks[index]["type"] = "malformed_tool_use"
        else:
            blocks[index]["input"] = args
    answer.blocks = [blocks[i] for i in sorted(blocks)]
