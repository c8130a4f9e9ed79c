"""Which opaque provider data a request may carry back to a model.

Models issue data they require back unchanged (Gemini thought signatures,
Anthropic thinking signatures and redacted thinking, OpenAI reasoning items),
and every model but the issuer rejects it. After a fallback or a transfer to an
agent on another model, the history holds parts issued by someone else: each
adapter asks ``own_parts`` for the parts it may send, so the rule lives in one
place.
"""

from __future__ import annotations

from ..types import Content, Part

__all__ = ["own_parts"]


def own_parts(content: Content, provider: str, model: str) -> list[Part]:
    """The parts of ``content`` to send to ``provider``/``model``.

    A part issued by this model is kept as it is. A part issued by another
    loses its signature and opaque data; if nothing else is left of it, or it
    is a thought (another model's reasoning is not this model's), it is dropped.
    Parts with no opaque data are kept unchanged.
    """
    kept: list[Part] = []
    for part in content.parts:
        if part.thought_signature is None and part.provider_data is None:
            kept.append(part)
        elif part.issued_by(provider, model):
            kept.append(part)
        elif not part.thought:
            stripped = part.model_copy(update={"thought_signature": None, "provider_data": None})
            if stripped.has_payload():
                kept.append(stripped)
    return kept
