"""``LlmRequest`` to ``google.genai`` types, and responses back.

Our data types mirror Gemini's, so this is mostly a field-by-field copy; the
choices worth reading are the ones that switch SDK behaviour off: automatic
function calling (the flow runs tools), automatic stream continuation and
HTTP retries (the flow's retry policy is the only layer that retries).
"""

from __future__ import annotations

import re
from typing import Any

from google.genai import types as gt

from ..types import Content, FunctionCall, Part, UsageMetadata
from ._http import finish_fields
from .llm_request import LlmRequest
from .llm_response import LlmResponse

__all__ = ["build_config", "contents_from", "response_from", "retry_delay", "usage_from"]

_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)s\s*")


def _part(part: Part) -> gt.Part | None:
    if part.thought:
        return None
    if part.function_call is not None:
        call = part.function_call
        return gt.Part(function_call=gt.FunctionCall(id=call.id, name=call.name, args=call.args))
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
    if part.text is not None:
        return gt.Part(text=part.text)
    return None


def contents_from(contents: list[Content]) -> list[gt.Content]:
    """Gemini contents: ``model`` stays ``model``, every other role is ``user``."""
    converted: list[gt.Content] = []
    for content in contents:
        parts = [p for p in (_part(part) for part in content.parts) if p is not None]
        if parts:
            role = "model" if content.role == "model" else "user"
            converted.append(gt.Content(role=role, parts=parts))
    return converted


def build_config(request: LlmRequest, timeout: float | None) -> gt.GenerateContentConfig:
    """The SDK config, with every hidden retry and automatic behaviour off."""
    config = request.config
    options: dict[str, Any] = {
        "automatic_function_calling": gt.AutomaticFunctionCallingConfig(disable=True),
        "automatic_continuation": False,
        "http_options": gt.HttpOptions(
            retry_options=gt.HttpRetryOptions(attempts=1),
            timeout=None if timeout is None else max(1, round(timeout * 1000)),
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
    return gt.GenerateContentConfig(**options)


def usage_from(usage: gt.GenerateContentResponseUsageMetadata | None) -> UsageMetadata | None:
    """Usage with thinking tokens counted as output."""
    if usage is None:
        return None
    inputs = usage.prompt_token_count or 0
    outputs = (usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0)
    return UsageMetadata(
        input_tokens=inputs,
        output_tokens=outputs,
        total_tokens=usage.total_token_count or inputs + outputs,
        cached_input_tokens=usage.cached_content_token_count,
    )


def parts_from(content: gt.Content | None) -> list[Part]:
    """Our parts from a candidate's content (text, thoughts, calls, bytes)."""
    parts: list[Part] = []
    for part in (content.parts if content is not None else None) or []:
        if part.function_call is not None and part.function_call.name:
            call = part.function_call
            parts.append(
                Part(function_call=FunctionCall(id=call.id, name=call.name, args=call.args or {}))
            )
        elif part.text is not None:
            parts.append(Part(text=part.text, thought=True if part.thought else None))
        elif part.inline_data is not None and part.inline_data.data is not None:
            blob = part.inline_data
            parts.append(Part.from_bytes(blob.data or b"", blob.mime_type or ""))
    return parts


def enum_name(value: Any) -> str | None:
    """The name of an SDK enum (or the string it already is)."""
    if value is None:
        return None
    return str(getattr(value, "value", value))


def response_from(
    parts: list[Part],
    finish: str | None,
    block_reason: str | None,
    usage: UsageMetadata | None,
    model_version: str | None,
) -> LlmResponse:
    """A complete response; a blocked prompt or an unusable finish sets ``error_code``."""
    merged: list[Part] = []
    for part in parts:
        previous = merged[-1] if merged else None
        if (
            previous is not None
            and part.text is not None
            and previous.text is not None
            and part.thought == previous.thought
        ):
            merged[-1] = Part(text=previous.text + part.text, thought=part.thought)
        else:
            merged.append(part)
    content = Content(role="model", parts=merged) if merged else None
    if block_reason is not None and content is None:
        return LlmResponse(
            error_code=block_reason,
            error_message=f"the prompt was blocked ({block_reason})",
            usage_metadata=usage,
            model_version=model_version,
        )
    fields = finish_fields(finish, has_content=content is not None)
    return LlmResponse(content=content, usage_metadata=usage, model_version=model_version, **fields)


def retry_delay(body: Any) -> float | None:
    """Seconds from a ``google.rpc.RetryInfo`` detail of an error body, if any."""
    error = body.get("error", body) if isinstance(body, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    for detail in details if isinstance(details, list) else []:
        if not isinstance(detail, dict) or not str(detail.get("@type", "")).endswith("RetryInfo"):
            continue
        delay = detail.get("retryDelay")
        if isinstance(delay, dict):
            return float(delay.get("seconds", 0)) + float(delay.get("nanos", 0)) / 1e9
        match = _DURATION.fullmatch(str(delay))
        if match:
            return float(match[1])
    return None
