"""``LlmRequest`` to ``google.genai`` types, and responses back.

Our data types mirror Gemini's, so this is mostly a field-by-field copy; the
choices worth reading are the ones that switch SDK behaviour off (automatic
function calling, automatic stream continuation, HTTP retries: the flow's
retry policy is the only layer that retries), the thought signatures that
must go back to the model that issued them, and the thinking mapping.
"""

from __future__ import annotations

import base64
import math
import re
from typing import Any

from google.genai import types as gt

from .._json import is_array, is_object
from ..types import Content, FunctionCall, Part, ProviderData, ThinkingConfig, UsageMetadata
from ._provider_data import own_parts
from ._usage import read_counts
from .llm_request import LlmRequest

__all__ = [
    "PROVIDER",
    "build_config",
    "contents_from",
    "enum_name",
    "parts_from",
    "retry_delay",
    "thinking_config",
    "usage_from",
]

PROVIDER = "gemini"
_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)s\s*")
# Google's documented stand-in for the signature of a function call that no
# Gemini 3 model issued (history from another model, or built by hand). The
# SDK sends bytes as URL-safe base64, which turns these bytes back into the text.
SKIP_SIGNATURE = base64.urlsafe_b64decode("skip_thought_signature_validator")
# Gemini 2.x takes only a token budget; these stand in for an effort level.
_BUDGET_FOR_EFFORT = {"minimal": 128, "low": 1024, "medium": 8192, "high": 24576}


def _part(part: Part) -> gt.Part | None:
    signature = part.thought_signature
    if part.thought:
        return None
    if part.function_call is not None:
        call = part.function_call
        return gt.Part(
            function_call=gt.FunctionCall(id=call.id, name=call.name, args=call.args),
            thought_signature=signature,
        )
    if part.function_response is not None:
        result = part.function_response
        return gt.Part(
            function_response=gt.FunctionResponse(
                id=result.id, name=result.name, response=result.response
            )
        )
    if part.inline_data is not None:
        blob = part.inline_data
        return gt.Part(inline_data=gt.Blob(mime_type=blob.mime_type, data=blob.data))
    if part.text or (part.text is not None and signature is not None):
        # An empty text part is sent only when it carries a signature.
        return gt.Part(text=part.text, thought_signature=signature)
    return None


def contents_from(contents: list[Content], model: str) -> list[gt.Content]:
    """Gemini contents for ``model``: ``model`` stays ``model``, every other role is ``user``.

    Parts go through ``own_parts``: signatures another model issued are dropped.
    For a Gemini 3 model, a step whose first function call has no signature
    (another model made it, or it was built by hand) gets Google's documented
    placeholder, without which the API refuses the request.
    """
    converted: list[gt.Content] = []
    for content in contents:
        kept = own_parts(content, PROVIDER, model)
        parts = [p for p in (_part(part) for part in kept) if p is not None]
        if content.role == "model" and _checks_signatures(model):
            _sign_first_call(parts)
        if parts:
            role = "model" if content.role == "model" else "user"
            converted.append(gt.Content(role=role, parts=parts))
    return converted


def _checks_signatures(model: str) -> bool:
    return model.removeprefix("models/").startswith("gemini-3")


def _sign_first_call(parts: list[gt.Part]) -> None:
    first = next((p for p in parts if p.function_call is not None), None)
    if first is not None and first.thought_signature is None:
        first.thought_signature = SKIP_SIGNATURE


def thinking_config(thinking: ThinkingConfig, model: str) -> gt.ThinkingConfig:
    """Gemini's ``thinking_config`` for the neutral ``ThinkingConfig``.

    Gemini 2.x models take a token budget only: ``budget_tokens``, else one
    derived from ``effort`` (minimal 128, low 1024, medium 8192, high 24576).
    Later models take a level: ``effort`` becomes ``thinking_level``, else
    ``budget_tokens`` is sent as ``thinking_budget``. Never both (the API
    refuses a request with both).
    """
    budget, effort = thinking.budget_tokens, thinking.effort
    include = True if thinking.include_thoughts else None
    if model.removeprefix("models/").startswith(("gemini-2", "gemini-1")):
        if budget is None and effort is not None:
            budget = _BUDGET_FOR_EFFORT[effort]
        return gt.ThinkingConfig(thinking_budget=budget, include_thoughts=include)
    if effort is not None:
        level = gt.ThinkingLevel(effort.upper())
        return gt.ThinkingConfig(thinking_level=level, include_thoughts=include)
    return gt.ThinkingConfig(thinking_budget=budget, include_thoughts=include)


def build_config(
    request: LlmRequest, timeout: float | None, model: str, http: dict[str, Any]
) -> gt.GenerateContentConfig:
    """The SDK config, with every hidden retry and automatic behaviour off.

    ``http`` holds extra ``HttpOptions`` fields (headers) for every request.
    """
    config = request.config
    options: dict[str, Any] = {
        "automatic_function_calling": gt.AutomaticFunctionCallingConfig(disable=True),
        "automatic_continuation": False,
        "http_options": gt.HttpOptions(
            retry_options=gt.HttpRetryOptions(attempts=1),
            timeout=None if timeout is None else max(1, round(timeout * 1000)),
            **http,
        ),
    }
    if config.system_instruction:
        options["system_instruction"] = config.system_instruction
    if config.tools:
        declarations = [
            gt.FunctionDeclaration(
                name=t.name, description=t.description, parameters_json_schema=t.parameters
            )
            for t in config.tools
        ]
        options["tools"] = [gt.Tool(function_declarations=declarations)]
    for name in (
        "temperature",
        "top_p",
        "top_k",
        "max_output_tokens",
        "stop_sequences",
        "seed",
        "response_mime_type",
        "labels",
    ):
        value = getattr(config, name)
        if value is not None:
            options[name] = value
    if config.response_schema is not None:
        options["response_json_schema"] = config.response_schema
    if config.thinking is not None:
        options["thinking_config"] = thinking_config(config.thinking, model)
    return gt.GenerateContentConfig(**options)


def usage_from(usage: gt.GenerateContentResponseUsageMetadata | None) -> UsageMetadata | None:
    """Usage in our categories: tool-use prompt is input, thoughts are output.

    Gemini's ``promptTokenCount`` holds cached tokens but not
    ``toolUsePromptTokenCount``; ``candidatesTokenCount`` excludes
    ``thoughtsTokenCount``. The total is recomputed as input + output, which
    equals Gemini's ``totalTokenCount`` when it reports every category.
    Invalid counts make it None (``_usage``).
    """
    if usage is None:
        return None
    counts = read_counts(
        PROVIDER,
        {
            "promptTokenCount": usage.prompt_token_count,
            "candidatesTokenCount": usage.candidates_token_count,
            "cachedContentTokenCount": usage.cached_content_token_count,
            "thoughtsTokenCount": usage.thoughts_token_count,
            "toolUsePromptTokenCount": usage.tool_use_prompt_token_count,
        },
    )
    if counts is None:
        return None
    tool_use, thoughts = counts["toolUsePromptTokenCount"], counts["thoughtsTokenCount"]
    inputs = (counts["promptTokenCount"] or 0) + (tool_use or 0)
    outputs = (counts["candidatesTokenCount"] or 0) + (thoughts or 0)
    return UsageMetadata(
        input_tokens=inputs,
        output_tokens=outputs,
        total_tokens=inputs + outputs,
        cached_input_tokens=counts["cachedContentTokenCount"],
        reasoning_tokens=thoughts,
        tool_use_prompt_tokens=tool_use,
    )


def parts_from(content: gt.Content | None, model: str) -> list[Part]:
    """Our parts from a candidate's content (text, thoughts, calls, bytes).

    A part's ``thoughtSignature`` is kept with ``provider_data`` naming
    ``model``; an empty text part without one is dropped (Gemini streams one
    after a function call at times, and it must not be echoed back).
    """
    parts: list[Part] = []
    parts_in: list[gt.Part] = (content.parts if content is not None else None) or []
    for part in parts_in:
        signature = part.thought_signature
        issuer = ProviderData(provider=PROVIDER, model=model) if signature else None
        signed: dict[str, Any] = {"thought_signature": signature, "provider_data": issuer}
        call = part.function_call
        if call is not None and call.name:
            parts.append(
                Part(
                    function_call=FunctionCall(id=call.id, name=call.name, args=call.args or {}),
                    **signed,
                )
            )
        elif part.text is not None and (part.text or signature):
            parts.append(Part(text=part.text, thought=True if part.thought else None, **signed))
        elif part.inline_data is not None and part.inline_data.data is not None:
            blob = part.inline_data
            parts.append(Part.from_bytes(blob.data or b"", blob.mime_type or ""))
    return parts


def enum_name(value: Any) -> str | None:
    """The name of an SDK enum (or the string it already is)."""
    if value is None:
        return None
    return str(getattr(value, "value", value))


def retry_delay(body: Any) -> float | None:
    """Seconds from a ``google.rpc.RetryInfo`` detail of an error body, if any.

    A value that is not a finite, non-negative duration counts as absent.
    """
    error = body.get("error", body) if is_object(body) else None
    details = error.get("details") if is_object(error) else None
    for detail in details if is_array(details) else []:
        if not is_object(detail) or not str(detail.get("@type", "")).endswith("RetryInfo"):
            continue
        delay = detail.get("retryDelay")
        if is_object(delay):
            return _seconds(delay.get("seconds", 0), delay.get("nanos", 0))
        match = _DURATION.fullmatch(str(delay))
        if match:
            return float(match[1])
    return None


def _seconds(seconds: Any, nanos: Any) -> float | None:
    numbers: list[float] = []
    for value in (seconds, nanos):
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            return None
        try:
            number = float(value)
        except ValueError:
            return None
        if not math.isfinite(number) or number < 0:
            return None
        numbers.append(number)
    return numbers[0] + numbers[1] / 1e9
