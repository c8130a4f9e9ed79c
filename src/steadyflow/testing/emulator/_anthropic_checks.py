"""Checking a Messages request as strictly as Anthropic does.

The real API answers 400 ``invalid_request_error`` for a parameter or a
block field it does not know, no message at all, an empty text block, a ``tool_use`` whose
``tool_result`` is not in the next user message (or a result for a call the
previous message did not make), results that do not lead their message, and,
with extended thinking on, an assistant turn before a tool result that does
not start with its thinking blocks, a thinking block whose ``signature`` it
did not issue for this model, thinking settings outside the API's limits.
The emulator checks the same, so an adapter that gets any of it wrong fails
here before it fails in production.

Signatures and redacted thinking are sealed (``_sealed``) with the model
that issued them, so one model's thinking sent to another is refused too.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..._json import is_array, is_object
from ._dialect import WireError
from ._model import next_id
from ._sealed import seal, unseal

__all__ = ["REDACTION_TRIGGER", "check_request", "redacted_data", "sign", "thinking_on"]

REDACTION_TRIGGER = (
    "ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_46C9A13E193C177646C7398A98432ECCCE4C1253"
)
"""A user message containing this string gets a ``redacted_thinking`` block (as on the real API)."""

_PARAMETERS = frozenset(
    {
        "model", "max_tokens", "messages", "system", "tools", "tool_choice", "stream",
        "stop_sequences", "temperature", "top_p", "top_k", "thinking", "metadata",
        "output_config", "service_tier", "container", "inference_geo", "speed",
        "cache_control", "mcp_servers",
    }
)  # fmt: skip
_BLOCK_FIELDS = {
    "text": frozenset({"type", "text", "citations", "cache_control"}),
    "image": frozenset({"type", "source", "cache_control"}),
    "document": frozenset({"type", "source", "title", "context", "citations", "cache_control"}),
    "tool_use": frozenset({"type", "id", "name", "input", "cache_control"}),
    "tool_result": frozenset({"type", "tool_use_id", "content", "is_error", "cache_control"}),
    "thinking": frozenset({"type", "thinking", "signature"}),
    "redacted_thinking": frozenset({"type", "data"}),
}
_TOOL_FIELDS = frozenset(
    {"type", "name", "description", "input_schema", "cache_control", "strict", "input_examples"}
)
# Server-tool blocks are passed through unchecked.
_OPAQUE_BLOCKS = frozenset({"server_tool_use", "web_search_tool_result", "search_result"})
_THOUGHTS = ("thinking", "redacted_thinking")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def sign(model: str, thinking: str) -> str:
    """The ``signature`` of a thinking block ``model`` wrote."""
    return seal({"model": model, "thinking": _digest(thinking)})


def redacted_data(model: str) -> str:
    """The opaque ``data`` of a redacted thinking block from ``model``."""
    return seal({"model": model, "redacted": next_id("redacted")})


def thinking_on(body: dict[str, Any]) -> bool:
    """Whether the request turned extended thinking on."""
    thinking = body.get("thinking")
    return is_object(thinking) and thinking.get("type") in ("enabled", "adaptive")


def check_request(body: dict[str, Any]) -> None:
    """Raise ``WireError`` with Anthropic's message for what the real API refuses."""
    for name in body:
        if name not in _PARAMETERS:
            raise WireError(f"{name}: Extra inputs are not permitted")
    if thinking_on(body):
        _check_thinking_settings(body)
    for n, tool in enumerate(body.get("tools") or ()):
        _check_tool(tool, f"tools.{n}")
    messages = body["messages"]
    if not is_array(messages):
        raise WireError("messages: Input should be a valid list")
    if not messages:
        raise WireError("messages: at least one message is required")
    model = str(body["model"])
    for n, message in enumerate(messages):
        _check_message(message, f"messages.{n}", model)
    _check_pairs(messages)
    if thinking_on(body):
        _check_thinking_kept(messages)


def _check_tool(tool: Any, where: str) -> None:
    """A custom tool's fields (server tools, with a ``type`` of their own, pass unchecked)."""
    if not is_object(tool):
        raise WireError(f"{where}: Input should be a valid dictionary")
    if tool.get("type", "custom") != "custom":
        return
    for name in tool:
        if name not in _TOOL_FIELDS:
            raise WireError(f"{where}.custom.{name}: Extra inputs are not permitted")
    if "name" not in tool or "input_schema" not in tool:
        raise WireError(f"{where}.custom: `name` and `input_schema` are required")


def _check_thinking_settings(body: dict[str, Any]) -> None:
    thinking = body["thinking"]
    if thinking["type"] == "enabled":
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or budget < 1024:
            raise WireError(
                "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
            )
        if body["max_tokens"] <= budget:
            raise WireError("`max_tokens` must be greater than `thinking.budget_tokens`")
    if body.get("temperature", 1) != 1:
        raise WireError("`temperature` may only be set to 1 when thinking is enabled")
    if "top_k" in body:
        raise WireError("`top_k` is not supported when thinking is enabled")
    if not 0.95 <= body.get("top_p", 1) <= 1:
        raise WireError("`top_p` must be between 0.95 and 1 when thinking is enabled")


def _check_message(message: Any, where: str, model: str) -> None:
    if not is_object(message):
        raise WireError(f"{where}: Input should be a valid dictionary")
    for name in message:
        if name not in ("role", "content"):
            raise WireError(f"{where}.{name}: Extra inputs are not permitted")
    content = message.get("content")
    if isinstance(content, str):
        if not content:
            raise WireError(f"{where}: all messages must have non-empty content")
        return
    if not content:
        raise WireError(f"{where}: all messages must have non-empty content")
    for n, block in enumerate(content):
        _check_block(block, f"{where}.content.{n}", model)


def _check_block(block: Any, where: str, model: str) -> None:
    kind = block.get("type") if is_object(block) else None
    if kind in _OPAQUE_BLOCKS:
        return
    fields = _BLOCK_FIELDS.get(str(kind))
    if fields is None:
        raise WireError(f"{where}.type: Input tag {kind!r} does not match any of the expected tags")
    for name in block:
        if name not in fields:
            raise WireError(f"{where}.{kind}.{name}: Extra inputs are not permitted")
    if kind == "text" and not block.get("text"):
        raise WireError("messages: text content blocks must be non-empty")
    if kind == "thinking":
        facts = unseal(block.get("signature"))
        if facts != {"model": model, "thinking": _digest(str(block.get("thinking", "")))}:
            raise WireError(f"{where}: Invalid `signature` in `thinking` block")
    if kind == "redacted_thinking":
        facts = unseal(block.get("data"))
        if facts is None or facts.get("model") != model:
            raise WireError(f"{where}: Invalid `data` in `redacted_thinking` block")


def _kinds(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    return [str(b.get("type")) for b in content] if is_array(content) else []


def _ids(message: dict[str, Any] | None, kind: str, key: str) -> list[str]:
    content = message.get("content") if message is not None else None
    if not is_array(content):
        return []
    return [str(b.get(key)) for b in content if b.get("type") == kind]


def _check_pairs(messages: list[dict[str, Any]]) -> None:
    """Every ``tool_use`` answered in the next message; every ``tool_result`` for the last one."""
    for n, message in enumerate(messages):
        after = messages[n + 1] if n + 1 < len(messages) else None
        calls = _ids(message, "tool_use", "id") if message.get("role") == "assistant" else []
        answered = _ids(after, "tool_result", "tool_use_id")
        missing = [i for i in calls if i not in answered]
        if calls and missing:
            raise WireError(
                f"messages.{n}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
                "corresponding `tool_result` block in the next message."
            )
        before = messages[n - 1] if n else None
        made = (
            _ids(before, "tool_use", "id") if before and before.get("role") == "assistant" else []
        )
        results = (
            _ids(message, "tool_result", "tool_use_id") if message.get("role") == "user" else []
        )
        unexpected = [i for i in results if i not in made]
        if unexpected:
            raise WireError(
                f"messages.{n}.content: unexpected `tool_use_id` found in `tool_result` blocks: "
                f"{', '.join(unexpected)}. Each `tool_result` block must have a corresponding "
                "`tool_use` block in the previous message."
            )
        kinds = _kinds(message)
        leading = len(results)
        if "tool_result" in kinds[leading:]:
            raise WireError(
                f"messages.{n}: `tool_result` blocks must come first in the message content"
            )


def _check_thinking_kept(messages: list[dict[str, Any]]) -> None:
    """With thinking on, an assistant turn inside its tool loop starts with its thinking.

    The turn starts after the last user message that is not only tool results;
    its first assistant message must open with the thinking blocks it came with.
    """
    last = messages[-1] if messages else None
    if last is None or last.get("role") != "user" or "tool_result" not in _kinds(last):
        return
    starts = [
        n
        for n, m in enumerate(messages)
        if m.get("role") == "user" and set(_kinds(m) or ["text"]) != {"tool_result"}
    ]
    n = starts[-1] + 1 if starts else 0
    opening = messages[n] if n < len(messages) - 1 else {}
    kinds = _kinds(opening) if opening.get("role") == "assistant" else []
    if kinds and kinds[0] not in _THOUGHTS:
        raise WireError(
            f"messages.{n}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
            f"`{kinds[0]}`. When `thinking` is enabled, a final `assistant` message must start "
            "with a thinking block (before the last set of `tool_use` and `tool_result` blocks). "
            "Send back the thinking blocks of previous turns, or turn `thinking` off."
        )
