"""Chat Completions chunks to partial responses and one complete aggregate.

A stream is complete once a choice's ``finish_reason`` has arrived; a body
that ends before it (a chunked body closed cleanly before ``[DONE]``, a
close-delimited body cut mid-event: the SDK ends either quietly) raises
``ModelConnectionError``, so a truncated answer is never stored as a whole
one, and is retried when nothing was yielded yet. Usage comes from the usage
chunk (``stream_options.include_usage``) or, on Groq, from ``x_groq.usage``
when only that carries it.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from .._json import is_object
from ..errors import ModelConnectionError
from ..types import Content, UsageMetadata
from ._openai_wire import assemble, usage_from
from .llm_response import LlmResponse

__all__ = ["aggregate"]


class _Answer:
    """What the chunks said so far."""

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self.text: list[str] = []
        self.refusal: list[str] = []
        self.calls: dict[int, list[Any]] = {}
        self.finish: str | None = None
        self.usage: UsageMetadata | None = None
        self.model: str | None = None
        self.response_id: str | None = None
        self.service_tier: str | None = None

    def read_envelope(self, chunk: Any) -> None:
        self.model = chunk.model or self.model
        self.response_id = chunk.id or self.response_id
        self.service_tier = chunk.service_tier or self.service_tier
        raw_usage = chunk.usage
        if raw_usage is None:
            raw_usage = _groq_usage(chunk)
        if raw_usage is not None:
            self.usage = usage_from(raw_usage, self.provider)

    def read_delta(self, delta: Any) -> None:
        self.refusal.append(getattr(delta, "refusal", None) or "")
        tool_calls: list[Any] = delta.tool_calls or []
        for tool_call in tool_calls:
            slot = self.calls.setdefault(tool_call.index, [None, "", ""])
            slot[0] = tool_call.id or slot[0]
            if tool_call.function is not None:
                slot[1] += tool_call.function.name or ""
                slot[2] += tool_call.function.arguments or ""

    def complete(self) -> LlmResponse:
        ordered = [tuple(self.calls[i]) for i in sorted(self.calls)]
        return assemble(
            "".join(self.text),
            ordered,
            self.finish,
            self.usage,
            self.model,
            "".join(self.refusal),
            response_id=self.response_id,
            service_tier=self.service_tier,
        )


def _groq_usage(chunk: Any) -> Any:
    extra = getattr(chunk, "x_groq", None)
    return extra.get("usage") if is_object(extra) else getattr(extra, "usage", None)


async def aggregate(
    chunks: AsyncIterable[Any], provider: str, model: str
) -> AsyncIterator[LlmResponse]:
    """Partial responses for text deltas, then the complete aggregate.

    Raises:
        ModelConnectionError: the stream ended before its finish reason.
    """
    answer = _Answer(provider)
    async for chunk in chunks:
        answer.read_envelope(chunk)
        choices: list[Any] = chunk.choices or []
        for choice in choices[:1]:
            delta = choice.delta
            if delta.content:
                answer.text.append(delta.content)
                yield LlmResponse(
                    content=Content.from_text(delta.content, role="model"), partial=True
                )
            answer.read_delta(delta)
            answer.finish = choice.finish_reason or answer.finish
    if answer.finish is None:
        raise ModelConnectionError(
            f"{provider} model {model!r}: the stream ended before its finish reason "
            "(a truncated answer)",
            provider=provider,
        )
    yield answer.complete()
