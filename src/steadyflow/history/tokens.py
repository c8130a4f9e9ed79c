"""Token counts for the history budget: the provider's numbers where known, else an estimate.

A provider reports, per call, the tokens it read and wrote
(``Event.usage_metadata``). A model message's own size is what the provider
wrote for it (``output_tokens``), so an agent's own messages are counted
with that number. Everything else (user messages, tool results, other
agents' messages re-cast as context, summaries without usage) is estimated:

- text, function-call and function-response parts: one token per
  ``CHARS_PER_TOKEN`` characters of the text or of the compact JSON of the
  call's name and arguments (the response's name and body), rounded up;
- inline bytes (images, audio, PDFs): ``BLOB_TOKENS`` per part (Gemini's
  figure for an image; other media vary);
- plus ``CONTENT_OVERHEAD_TOKENS`` per message for role and framing.

The estimate is deliberately simple and provider-neutral: it is within tens
of percent for English text and code, and errs high for JSON-heavy tool
results. Budgets are soft guidance either way; leave headroom below a
model's hard context limit.
"""

from __future__ import annotations

import json
from typing import Any

from ..events import Event
from ..types import Content, Part

__all__ = [
    "BLOB_TOKENS",
    "CHARS_PER_TOKEN",
    "CONTENT_OVERHEAD_TOKENS",
    "chars_tokens",
    "content_tokens",
    "entry_tokens",
    "text_tokens",
]

CHARS_PER_TOKEN = 4
CONTENT_OVERHEAD_TOKENS = 4
BLOB_TOKENS = 258


def text_tokens(text: str) -> int:
    """Estimated tokens of ``text``: one per ``CHARS_PER_TOKEN`` characters, rounded up."""
    return chars_tokens(len(text))


def chars_tokens(chars: int) -> int:
    """Estimated tokens of ``chars`` characters of text (a stream's, counted as it comes)."""
    return -(-chars // CHARS_PER_TOKEN)


def _json_tokens(name: str, body: dict[str, Any]) -> int:
    return text_tokens(name) + text_tokens(json.dumps(body, separators=(",", ":"), default=str))


def _part_tokens(part: Part) -> int:
    tokens = text_tokens(part.text) if part.text else 0
    if part.function_call is not None:
        tokens += _json_tokens(part.function_call.name, part.function_call.args)
    if part.function_response is not None:
        tokens += _json_tokens(part.function_response.name, part.function_response.response)
    if part.inline_data is not None:
        tokens += BLOB_TOKENS
    return tokens


def content_tokens(content: Content) -> int:
    """Estimated tokens of one message, framing included."""
    return CONTENT_OVERHEAD_TOKENS + sum(_part_tokens(part) for part in content.parts)


def entry_tokens(event: Event, content: Content) -> int:
    """Tokens that ``content`` (what an agent sees of ``event``) adds to a request.

    The provider's ``output_tokens`` when ``content`` is the event's own
    message and the provider reported usage for it; the estimate otherwise
    (for instance an event re-cast as context for another agent).
    """
    usage = event.usage_metadata
    if content is event.content and usage is not None and usage.output_tokens > 0:
        return CONTENT_OVERHEAD_TOKENS + usage.output_tokens
    return content_tokens(content)
