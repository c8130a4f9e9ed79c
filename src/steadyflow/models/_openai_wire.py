"""``LlmRequest`` to OpenAI Chat Completions parameters, and answers back.

Kept apart from the adapter so the mapping rules can be read (and tested)
on their own: roles, tool calls and tool messages paired by id, JSON-schema
tools, structured output, usage and finish reasons.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from ..errors import ConfigurationError
from ..types import Content, FunctionCall, GenerateContentConfig, Part, UsageMetadata
from ._http import finish_fields, parse_arguments
from .llm_request import LlmRequest
from .llm_response import LlmResponse

__all__ = ["build_params", "finish_reason", "response_from_message", "usage_from"]

_FINISH = {
    "stop": "STOP",
    "tool_calls": "STOP",
    "function_call": "STOP",
    "length": "MAX_TOKENS",
    "content_filter": "SAFETY",
}


def finish_reason(raw: str | None) -> str | None:
    """OpenAI's finish reason in the project's vocabulary (``STOP``, ``MAX_TOKENS``...)."""
    if raw is None:
        return None
    return _FINISH.get(raw, raw.upper())


def _call_id(call: FunctionCall) -> str:
    return call.id or f"call_{call.name}"


def _user_part(part: Part) -> dict[str, Any] | None:
    if part.text is not None and not part.thought:
        return {"type": "text", "text": part.text}
    if part.inline_data is not None:
        blob = part.inline_data
        if not blob.mime_type.startswith("image/"):
            raise ConfigurationError(
                f"the OpenAI adapter can send inline images only, not {blob.mime_type!r}"
            )
        data = base64.b64encode(blob.data).decode("ascii")
        return {"type": "image_url", "image_url": {"url": f"data:{blob.mime_type};base64,{data}"}}
    return None


def _model_message(content: Content) -> dict[str, Any] | None:
    text = "".join(p.text for p in content.parts if p.text and not p.thought)
    calls = [p.function_call for p in content.parts if p.function_call is not None]
    if not text and not calls:
        return None
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [
            {
                "id": _call_id(c),
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.args)},
            }
            for c in calls
        ]
    return message


def _user_messages(content: Content) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for part in content.parts:
        response = part.function_response
        if response is not None:
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": response.id or f"call_{response.name}",
                    "content": json.dumps(response.response),
                }
            )
    pieces = [p for p in (_user_part(part) for part in content.parts) if p is not None]
    if pieces:
        only_text = all(p["type"] == "text" for p in pieces)
        body: Any = "".join(p["text"] for p in pieces) if only_text else pieces
        messages.append({"role": "user", "content": body})
    return messages


def messages_from(request: LlmRequest) -> list[dict[str, Any]]:
    """Chat messages: the system instruction, then the contents in order."""
    messages: list[dict[str, Any]] = []
    if request.config.system_instruction:
        messages.append({"role": "system", "content": request.config.system_instruction})
    for content in request.contents:
        if content.role == "model":
            message = _model_message(content)
            if message is not None:
                messages.append(message)
        else:
            messages.extend(_user_messages(content))
    return messages


def _generation(config: GenerateContentConfig, max_tokens_name: str) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for ours, theirs in (("temperature", "temperature"), ("top_p", "top_p"), ("seed", "seed")):
        value = getattr(config, ours)
        if value is not None:
            params[theirs] = value
    if config.max_output_tokens is not None:
        params[max_tokens_name] = config.max_output_tokens
    if config.stop_sequences:
        params["stop"] = list(config.stop_sequences)
    if config.response_schema is not None:
        schema = {"name": "response", "schema": config.response_schema}
        params["response_format"] = {"type": "json_schema", "json_schema": schema}
    elif config.response_mime_type == "application/json":
        params["response_format"] = {"type": "json_object"}
    return params


def build_params(request: LlmRequest, model: str, max_tokens_name: str) -> dict[str, Any]:
    """Keyword arguments for ``chat.completions.create`` (without ``stream``)."""
    params: dict[str, Any] = {"model": model, "messages": messages_from(request)}
    if request.config.tools:
        params["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                },
            }
            for tool in request.config.tools
        ]
    params.update(_generation(request.config, max_tokens_name))
    return params


def usage_from(usage: Any) -> UsageMetadata | None:
    """``UsageMetadata`` from a ``CompletionUsage`` (None when absent)."""
    if usage is None:
        return None
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    return UsageMetadata(
        input_tokens=usage.prompt_tokens or 0,
        output_tokens=usage.completion_tokens or 0,
        total_tokens=usage.total_tokens or 0,
        cached_input_tokens=cached,
    )


def assemble(
    text: str,
    calls: list[tuple[str | None, str, str]],
    raw_finish: str | None,
    usage: UsageMetadata | None,
    model_version: str | None,
    refusal: str | None = None,
) -> LlmResponse:
    """The complete response from text and ``(id, name, arguments JSON)`` calls.

    A ``refusal`` (the model declined to answer) with no text or calls gives
    ``error_code="REFUSAL"`` and the refusal as ``error_message``.
    """
    parts = [Part(text=text)] if text else []
    malformed: list[str] = []
    for call_id, name, arguments in calls:
        args = parse_arguments(arguments)
        if args is None:
            malformed.append(name)
            continue
        parts.append(Part(function_call=FunctionCall(id=call_id, name=name, args=args)))
    fields = finish_fields(finish_reason(raw_finish), has_content=bool(parts))
    if malformed:
        fields["error_code"] = "MALFORMED_FUNCTION_CALL"
        fields["error_message"] = f"arguments of {', '.join(malformed)} are not a JSON object"
    elif refusal and not parts:
        fields["error_code"] = "REFUSAL"
        fields["error_message"] = refusal
    content = Content(role="model", parts=parts) if parts else None
    return LlmResponse(content=content, usage_metadata=usage, model_version=model_version, **fields)


def response_from_message(completion: Any) -> LlmResponse:
    """The complete response of a non-streamed ``ChatCompletion``."""
    if not completion.choices:
        return LlmResponse(
            error_code="NO_CHOICES",
            error_message="the provider returned no choices",
            usage_metadata=usage_from(completion.usage),
        )
    choice = completion.choices[0]
    message = choice.message
    calls = [
        (tc.id, tc.function.name, tc.function.arguments)
        for tc in (message.tool_calls or [])
        if getattr(tc, "function", None) is not None
    ]
    return assemble(
        message.content or "",
        calls,
        choice.finish_reason,
        usage_from(completion.usage),
        completion.model,
        getattr(message, "refusal", None),
    )
