"""``LlmRequest`` to OpenAI Chat Completions parameters, and answers back.

Kept apart from the adapter so the mapping rules can be read (and tested)
on their own: roles, tool calls and tool messages paired by id, JSON-schema
tools, structured output, reasoning effort, usage and finish reasons.

Reasoning: ``GenerateContentConfig.thinking`` becomes ``reasoning_effort``
(its ``effort``, or one derived from ``budget_tokens``: 0 is ``minimal``, up
to 2,048 ``low``, up to 16,384 ``medium``, above that ``high``; the same rule
as the Responses adapter). Chat Completions returns no thought text, so
``include_thoughts`` has nothing to ask for here (the Responses adapter
returns reasoning summaries).
"""

from __future__ import annotations

import base64
import json
from typing import Any

from .._json import is_object
from ..errors import ConfigurationError
from ..types import Content, FunctionCall, GenerateContentConfig, Part, UsageMetadata
from ._call_ids import with_call_ids
from ._http import finish_fields, parse_arguments
from ._instruction_turn import conversation
from ._provider_data import own_parts
from ._responses_wire import reasoning_effort
from ._usage import read_counts
from .llm_request import LlmRequest
from .llm_response import LlmResponse

__all__ = [
    "PROVIDER",
    "assemble",
    "build_params",
    "finish_reason",
    "reasoning_effort",
    "response_from_message",
    "usage_from",
]

PROVIDER = "openai"
"""``ProviderData.provider`` of what Chat Completions issues (Groq's endpoint: "groq")."""

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
    if part.text and not part.thought:
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


def _model_message(parts: list[Part]) -> dict[str, Any] | None:
    text = "".join(p.text for p in parts if p.text and not p.thought)
    calls = [p.function_call for p in parts if p.function_call is not None]
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


def _user_messages(parts: list[Part]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for part in parts:
        response = part.function_response
        if response is not None:
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": response.id or f"call_{response.name}",
                    "content": json.dumps(response.response),
                }
            )
    pieces = [p for p in (_user_part(part) for part in parts) if p is not None]
    if pieces:
        only_text = all(p["type"] == "text" for p in pieces)
        body: Any = "".join(p["text"] for p in pieces) if only_text else pieces
        messages.append({"role": "user", "content": body})
    return messages


def messages_from(request: LlmRequest, provider: str, model: str) -> list[dict[str, Any]]:
    """Chat messages: the system instruction, then the contents in order.

    Empty text parts are not sent (the API refuses empty content), and no
    other provider's opaque data or thoughts (``own_parts``).
    """
    messages: list[dict[str, Any]] = []
    if request.config.system_instruction:
        messages.append({"role": "system", "content": request.config.system_instruction})
    for content in with_call_ids(conversation(request.contents), "call_"):
        parts = own_parts(content, provider, model)
        if content.role == "model":
            message = _model_message(parts)
            if message is not None:
                messages.append(message)
        else:
            messages.extend(_user_messages(parts))
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
    if config.thinking is not None:
        params["reasoning_effort"] = reasoning_effort(config.thinking)
    return params


def build_params(
    request: LlmRequest, model: str, max_tokens_name: str, provider: str = PROVIDER
) -> dict[str, Any]:
    """Keyword arguments for ``chat.completions.create`` (without ``stream``)."""
    messages = messages_from(request, provider, model)
    params: dict[str, Any] = {"model": model, "messages": messages}
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


def _field(obj: Any, name: str) -> Any:
    """``obj.name`` for an SDK object, ``obj[name]`` for a raw dict (Groq's ``x_groq``)."""
    if is_object(obj):
        return obj.get(name)
    return getattr(obj, name, None)


def usage_from(usage: Any, provider: str = PROVIDER) -> UsageMetadata | None:
    """``UsageMetadata`` from a ``CompletionUsage`` or its dict (None when absent or invalid).

    ``prompt_tokens`` includes cached and cache-write tokens, and
    ``completion_tokens`` includes reasoning tokens, as ``UsageMetadata``
    counts them. Counts are checked by ``_usage.read_counts`` (``provider``
    names the provider in its warning).
    """
    if usage is None:
        return None
    prompt = _field(usage, "prompt_tokens_details")
    completion = _field(usage, "completion_tokens_details")
    counts = read_counts(
        provider,
        {
            "prompt_tokens": _field(usage, "prompt_tokens"),
            "completion_tokens": _field(usage, "completion_tokens"),
            "cached_tokens": _field(prompt, "cached_tokens"),
            "cache_write_tokens": _field(prompt, "cache_write_tokens"),
            "reasoning_tokens": _field(completion, "reasoning_tokens"),
        },
    )
    if counts is None:
        return None
    inputs, outputs = counts["prompt_tokens"] or 0, counts["completion_tokens"] or 0
    return UsageMetadata(
        input_tokens=inputs,
        output_tokens=outputs,
        total_tokens=inputs + outputs,
        cached_input_tokens=counts["cached_tokens"],
        cache_write_tokens=counts["cache_write_tokens"],
        reasoning_tokens=counts["reasoning_tokens"],
    )


def assemble(
    text: str,
    calls: list[tuple[str | None, str, str]],
    raw_finish: str | None,
    usage: UsageMetadata | None,
    model_version: str | None,
    refusal: str | None = None,
    *,
    response_id: str | None = None,
    service_tier: str | None = None,
) -> LlmResponse:
    """The complete response from text and ``(id, name, arguments JSON)`` calls.

    A ``refusal`` (the model declined to answer) with no text or calls gives
    ``error_code="REFUSAL"`` and the refusal as ``error_message``. Empty text
    gives no text part (a stream may end with an empty delta after its calls).
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
    return LlmResponse(
        content=content,
        usage_metadata=usage,
        model_version=model_version,
        response_id=response_id,
        service_tier=service_tier,
        **fields,
    )


def response_from_message(completion: Any, provider: str = PROVIDER) -> LlmResponse:
    """The complete response of a non-streamed ``ChatCompletion`` (``provider`` serves it)."""
    if not completion.choices:
        return LlmResponse(
            error_code="NO_CHOICES",
            error_message="the provider returned no choices",
            usage_metadata=usage_from(completion.usage, provider),
            response_id=completion.id,
        )
    choice = completion.choices[0]
    message = choice.message
    tool_calls: list[Any] = message.tool_calls or []
    calls = [
        (tc.id, tc.function.name, tc.function.arguments)
        for tc in tool_calls
        if getattr(tc, "function", None) is not None
    ]
    return assemble(
        message.content or "",
        calls,
        choice.finish_reason,
        usage_from(completion.usage, provider),
        completion.model,
        getattr(message, "refusal", None),
        response_id=completion.id,
        service_tier=completion.service_tier,
    )
