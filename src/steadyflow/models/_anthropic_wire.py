"""``LlmRequest`` to Anthropic Messages parameters.

Anthropic wants strictly alternating ``user``/``assistant`` messages, tool
results first in the user message that follows the ``tool_use`` blocks, no
empty text blocks, an explicit ``max_tokens``, and, with extended thinking
on, the assistant's ``thinking``/``redacted_thinking`` blocks sent back
unchanged before its tool calls; this module enforces all of that so the
adapter only moves data. Answers are read back in ``_anthropic_answer``.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from ..errors import ConfigurationError
from ..types import Content, GenerateContentConfig, Part, ThinkingConfig
from ._call_ids import with_call_ids
from ._instruction_turn import conversation
from ._provider_data import own_parts
from .llm_request import LlmRequest

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "EFFORT_BUDGETS",
    "MIN_THINKING_BUDGET",
    "PROVIDER",
    "adaptive_effort",
    "build_params",
    "takes_adaptive_thinking",
]

PROVIDER = "anthropic"

DEFAULT_MAX_TOKENS = 4096
"""``max_tokens`` sent when the request sets no ``max_output_tokens`` (Anthropic requires one).

With thinking on, the default is the thinking budget plus this much, so the
answer keeps room after the reasoning.
"""

MIN_THINKING_BUDGET = 1024
"""The smallest ``budget_tokens`` the Messages API accepts."""

EFFORT_BUDGETS = {"minimal": 1024, "low": 4096, "medium": 8192, "high": 16384}
"""``budget_tokens`` sent for a ``ThinkingConfig`` that gives only an effort."""

_ADAPTIVE = re.compile(
    r"claude-(opus|sonnet)-4-([6-9]|[1-9]\d)(?!\d)"  # 4.6 on (not a date: claude-opus-4-2025...)
    r"|claude-(opus|sonnet|haiku)-([5-9]|[1-9]\d)(?!\d)|claude-(mythos|fable)"
)
_EFFORTS = {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}


def takes_adaptive_thinking(model: str) -> bool:
    """Whether ``model`` thinks with ``{"type": "adaptive"}`` (Claude 4.6 and later).

    Anthropic deprecated ``{"type": "enabled", "budget_tokens"}`` on Claude
    Opus and Sonnet 4.6, and the later models (Opus 4.7, Mythos, the
    5 generation) answer it with a 400; older models take only that form.
    Names with a date or a cloud prefix match too.
    """
    return _ADAPTIVE.search(model) is not None


def adaptive_effort(thinking: ThinkingConfig | None) -> str | None:
    """``output_config.effort`` for adaptive thinking; None for thinking off.

    The effort given (minimal becomes low), else one from ``budget_tokens``
    (up to 4096 low, up to 8192 medium, above high); ``budget_tokens=0`` or
    neither set is off. No budget is sent, so none of the budget form's
    limits (its minimum of 1024, below ``max_tokens``) applies.
    """
    if thinking is None or thinking.budget_tokens == 0:
        return None
    if thinking.effort is not None:
        return _EFFORTS[thinking.effort]
    budget = thinking.budget_tokens
    if budget is None:
        return None
    if budget <= EFFORT_BUDGETS["low"]:
        return "low"
    return "medium" if budget <= EFFORT_BUDGETS["medium"] else "high"


def _block(part: Part) -> dict[str, Any] | None:
    if part.thought:
        return _thinking_block(part)
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


def _thinking_block(part: Part) -> dict[str, Any] | None:
    """A thinking block exactly as Claude issued it; None for thoughts it cannot take back.

    Only parts Claude issued carry a signature or a redacted payload (the
    caller filtered the rest through ``own_parts``); thoughts without either
    (written by a test double, or by another model) are not sent.
    """
    data = part.provider_data.data if part.provider_data is not None else {}
    if data.get("type") == "redacted_thinking":
        return dict(data)
    if part.thought_signature is None:
        return None
    signature = part.thought_signature.decode()
    return {"type": "thinking", "thinking": part.text or "", "signature": signature}


def _media(mime_type: str, data: bytes) -> dict[str, Any]:
    source = {"type": "base64", "media_type": mime_type, "data": base64.b64encode(data).decode()}
    if mime_type.startswith("image/"):
        return {"type": "image", "source": source}
    if mime_type == "application/pdf":
        return {"type": "document", "source": source}
    raise ConfigurationError(
        f"the Anthropic adapter can send images and PDFs inline, not {mime_type!r}"
    )


def messages_from(contents: list[Content], model: str) -> list[dict[str, Any]]:
    """Alternating messages; tool results lead their user message.

    Each content's parts go through ``own_parts``: thinking blocks and their
    signatures return only to the model that issued them.
    """
    messages: list[dict[str, Any]] = []
    for content in with_call_ids(contents, "toolu_"):
        role = "assistant" if content.role == "model" else "user"
        parts = own_parts(content, PROVIDER, model)
        blocks = [b for b in (_block(p) for p in parts) if b is not None]
        if not blocks:
            continue
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].extend(blocks)
        else:
            messages.append({"role": role, "content": blocks})
    for message in messages:
        if message["role"] == "user":
            blocks_in: list[dict[str, Any]] = message["content"]
            blocks_in.sort(key=lambda b: b["type"] != "tool_result")
    return messages


def thinking_budget(thinking: ThinkingConfig | None) -> int | None:
    """``budget_tokens`` to send, or None for thinking off.

    ``budget_tokens`` wins over ``effort``; 0 (or no config) turns thinking off.

    Raises:
        ConfigurationError: a budget below the API's minimum of 1024.
    """
    if thinking is None:
        return None
    budget = thinking.budget_tokens
    if budget is None:
        return EFFORT_BUDGETS[thinking.effort] if thinking.effort is not None else None
    if budget == 0:
        return None
    if budget < MIN_THINKING_BUDGET:
        raise ConfigurationError(
            f"thinking.budget_tokens={budget}: Anthropic needs at least {MIN_THINKING_BUDGET} "
            "(or 0 for thinking off)"
        )
    return budget


def _max_tokens(config: GenerateContentConfig, budget: int | None, effort: str | None) -> int:
    """``max_tokens``: the one set, else room for the answer after the thinking.

    ``budget`` is the budget form's (checked against the one set); with
    adaptive thinking the room left is the ``effort``'s budget.
    """
    if config.max_output_tokens is None:
        room = budget if effort is None else EFFORT_BUDGETS[effort]
        return DEFAULT_MAX_TOKENS + (room or 0)
    if budget is not None and budget >= config.max_output_tokens:
        raise ConfigurationError(
            f"thinking budget {budget} must be below max_output_tokens="
            f"{config.max_output_tokens} (thinking tokens count toward Anthropic's max_tokens)"
        )
    return config.max_output_tokens


def _sampling(config: GenerateContentConfig, thinking: bool) -> dict[str, Any]:
    """``temperature``/``top_p``/``top_k`` as set, within what thinking allows.

    With thinking on the API takes ``temperature`` only at 1, ``top_p`` only
    from 0.95 to 1, and no ``top_k``.
    """
    sampling = {
        name: value
        for name in ("temperature", "top_p", "top_k")
        if (value := getattr(config, name)) is not None
    }
    if not thinking:
        return sampling
    problems: list[str] = []
    if sampling.get("temperature", 1) != 1:
        problems.append(f"temperature={sampling['temperature']} (only 1)")
    if not 0.95 <= sampling.get("top_p", 1) <= 1:
        problems.append(f"top_p={sampling['top_p']} (0.95 to 1)")
    if "top_k" in sampling:
        problems.append(f"top_k={sampling['top_k']} (not allowed)")
    if problems:
        raise ConfigurationError(
            f"Anthropic extended thinking does not allow {', '.join(problems)}"
        )
    return sampling


def _loop_opens_with_thinking(messages: list[dict[str, Any]]) -> bool:
    """False inside a tool loop whose opening assistant message has no thinking to send.

    With thinking on, Claude refuses a tool loop (the messages since the last
    user message that is not only tool results) whose first assistant message
    does not start with its thinking blocks. They are missing when another
    model wrote that message (after a fallback, or a transfer): that call then
    goes without thinking, as the API's error advises.
    """
    if not messages or messages[-1]["role"] != "user":
        return True
    opening = None
    for message in messages:
        kinds = {b["type"] for b in message["content"]}
        if message["role"] == "user" and kinds != {"tool_result"}:
            opening = None
        elif message["role"] == "assistant" and opening is None:
            opening = message
    if opening is None or "tool_result" not in {b["type"] for b in messages[-1]["content"]}:
        return True
    return opening["content"][0]["type"] in ("thinking", "redacted_thinking")


def build_params(request: LlmRequest, model: str) -> dict[str, Any]:
    """Keyword arguments for ``messages.create`` (without ``stream``).

    ``temperature``, ``top_p`` and ``top_k`` go in the body (``extra_body``:
    the SDK has no arguments for them, the API takes them); there is no
    ``seed``. ``thinking`` becomes ``{"type": "enabled", "budget_tokens"}``
    (see ``thinking_budget``), or for Claude 4.6 and later ``{"type":
    "adaptive"}`` with ``output_config.effort`` (see
    ``takes_adaptive_thinking``), except inside a tool loop another model
    opened (see ``_loop_opens_with_thinking``). ``response_schema`` becomes
    ``output_config.format`` (structured output).

    Raises:
        ConfigurationError: thinking settings the API would refuse.
    """
    config = request.config
    adaptive = takes_adaptive_thinking(model)
    effort = adaptive_effort(config.thinking) if adaptive else None
    budget = None if adaptive else thinking_budget(config.thinking)
    thinking = budget is not None or effort is not None
    params: dict[str, Any] = {
        "model": model,
        "max_tokens": _max_tokens(config, budget, effort),
        "messages": messages_from(conversation(request.contents), model),
    }
    output: dict[str, Any] = {}
    if thinking and _loop_opens_with_thinking(params["messages"]):
        if effort is not None:
            params["thinking"] = {"type": "adaptive"}
            output["effort"] = effort
        else:
            params["thinking"] = {"type": "enabled", "budget_tokens": budget}
    if sampling := _sampling(config, thinking=thinking):
        params["extra_body"] = sampling
    if config.system_instruction:
        params["system"] = config.system_instruction
    if config.response_schema is not None:
        output["format"] = {"type": "json_schema", "schema": config.response_schema}
    if output:
        params["output_config"] = output
    if config.tools:
        params["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in config.tools
        ]
    if config.stop_sequences:
        params["stop_sequences"] = list(config.stop_sequences)
    return params
