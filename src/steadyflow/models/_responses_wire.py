"""``LlmRequest`` to OpenAI Responses API parameters, and ``Response`` objects back.

Kept apart from the adapter so the mapping rules can be read (and tested) on
their own: input items (messages, ``function_call`` / ``function_call_output``
paired by ``call_id``, reasoning items sent back to the model that issued
them), function tools, structured output, reasoning settings, usage with its
cached and reasoning token details, and finishes (``incomplete_details``).
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from ..errors import ConfigurationError
from ..types import (
    Citation,
    Content,
    FunctionCall,
    GenerateContentConfig,
    Part,
    ProviderData,
    ThinkingConfig,
    UsageMetadata,
)
from ._call_ids import with_call_ids
from ._http import finish_fields, parse_arguments
from ._instruction_turn import conversation
from ._provider_data import own_parts
from ._usage import read_counts
from .llm_request import LlmRequest
from .llm_response import LlmResponse

__all__ = ["PROVIDER", "build_params", "reasoning_effort", "response_from", "usage_from"]

PROVIDER = "openai-responses"
"""``ProviderData.provider`` of the reasoning items this API issues."""

_REASONING_MODEL = re.compile(r"o\d.*|gpt-5.*")


def is_reasoning_model(model: str) -> bool:
    """Whether ``model`` is one of OpenAI's reasoning models (``o1``, ``o3``..., ``gpt-5``...).

    The one place both OpenAI adapters (and the emulator playing OpenAI) tell
    a reasoning model by its name.
    """
    return _REASONING_MODEL.fullmatch(model) is not None


_INCOMPLETE = {"max_output_tokens": "MAX_TOKENS", "content_filter": "SAFETY"}


def reasoning_effort(thinking: ThinkingConfig) -> str:
    """OpenAI's effort level: ``effort``, else derived from ``budget_tokens``.

    0 is ``minimal``, up to 2,048 ``low``, up to 16,384 ``medium``, more
    ``high``; neither given is ``medium`` (OpenAI's default). Both OpenAI
    adapters use it (Chat Completions sends it as ``reasoning_effort``).
    """
    if thinking.effort is not None:
        return thinking.effort
    budget = thinking.budget_tokens
    if budget is None:
        return "medium"
    if budget == 0:
        return "minimal"
    return "low" if budget <= 2048 else "medium" if budget <= 16384 else "high"


def _reasoning_item(part: Part, store: bool) -> dict[str, Any] | None:
    data = part.provider_data.data if part.provider_data is not None else {}
    if not data.get("id") or (not store and not data.get("encrypted_content")):
        return None  # without its encrypted content an unstored item cannot be found again
    summary = data.get("summary") or ([part.text] if part.text else [])
    item: dict[str, Any] = {
        "type": "reasoning",
        "id": data["id"],
        "summary": [{"type": "summary_text", "text": text} for text in summary],
    }
    if data.get("encrypted_content"):
        item["encrypted_content"] = data["encrypted_content"]
    return item


def _model_items(content: Content, model: str, store: bool) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for part in own_parts(content, PROVIDER, model):
        if part.thought:
            reasoning = _reasoning_item(part, store) if part.issued_by(PROVIDER, model) else None
            if reasoning is not None:
                items.append(reasoning)
        elif part.function_call is not None:
            call = part.function_call
            items.append(
                {
                    "type": "function_call",
                    "call_id": call.id or f"call_{call.name}",
                    "name": call.name,
                    "arguments": json.dumps(call.args),
                }
            )
        elif part.text:
            last = items[-1] if items else None
            if last is not None and last["type"] == "message":
                last["content"] += part.text
            else:
                items.append({"type": "message", "role": "assistant", "content": part.text})
    while items and items[-1]["type"] == "reasoning":
        items.pop()  # the API refuses a reasoning item without the output that followed it
    return items


def _user_piece(part: Part) -> dict[str, Any] | None:
    if part.text and not part.thought:
        return {"type": "input_text", "text": part.text}
    blob = part.inline_data
    if blob is None:
        return None
    data = base64.b64encode(blob.data).decode("ascii")
    if blob.mime_type.startswith("image/"):
        return {"type": "input_image", "image_url": f"data:{blob.mime_type};base64,{data}"}
    if blob.mime_type == "application/pdf":
        url = f"data:{blob.mime_type};base64,{data}"
        return {"type": "input_file", "filename": "document.pdf", "file_data": url}
    raise ConfigurationError(
        f"the OpenAI Responses adapter can send images and PDFs only, not {blob.mime_type!r}"
    )


def _user_items(content: Content) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for part in content.parts:
        response = part.function_response
        if response is not None:
            call_id = response.id or f"call_{response.name}"
            output = json.dumps(response.response)
            items.append({"type": "function_call_output", "call_id": call_id, "output": output})
    pieces = [p for p in map(_user_piece, content.parts) if p is not None]
    if pieces:
        items.append({"type": "message", "role": "user", "content": pieces})
    return items


def input_items(request: LlmRequest, model: str, store: bool) -> list[dict[str, Any]]:
    """The ``input`` list: every content of the request, oldest first."""
    items: list[dict[str, Any]] = []
    for content in with_call_ids(conversation(request.contents), "call_"):
        if content.role == "model":
            items.extend(_model_items(content, model, store))
        else:
            items.extend(_user_items(content))
    return items


def _generation(config: GenerateContentConfig) -> dict[str, Any]:
    if config.stop_sequences:
        raise ConfigurationError(
            "the OpenAI Responses API has no stop sequences; remove stop_sequences "
            "from the generate_content_config or use the Chat Completions adapter (OpenAI)"
        )
    params: dict[str, Any] = {}
    for name in ("temperature", "top_p", "max_output_tokens"):
        value = getattr(config, name)
        if value is not None:
            params[name] = value
    if config.response_schema is not None:
        schema = {"type": "json_schema", "name": "response", "schema": config.response_schema}
        params["text"] = {"format": schema}
    elif config.response_mime_type == "application/json":
        params["text"] = {"format": {"type": "json_object"}}
    return params


def build_params(
    request: LlmRequest, model: str, *, store: bool, service_tier: str | None
) -> dict[str, Any]:
    """Keyword arguments for ``responses.create`` (without ``stream``).

    ``seed`` and ``top_k`` have no Responses parameter and are not sent.
    """
    config = request.config
    params: dict[str, Any] = {"model": model, "input": input_items(request, model, store)}
    params["store"] = store
    if config.system_instruction:
        params["instructions"] = config.system_instruction
    if config.tools:
        params["tools"] = [
            {
                "type": "function",
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
                "strict": False,
            }
            for tool in config.tools
        ]
    params.update(_generation(config))
    thinking = config.thinking
    if thinking is not None:
        reasoning = {"effort": reasoning_effort(thinking)}
        if thinking.include_thoughts:
            reasoning["summary"] = "auto"
        params["reasoning"] = reasoning
    if not store and (thinking is not None or is_reasoning_model(model)):
        params["include"] = ["reasoning.encrypted_content"]
    if service_tier is not None:
        params["service_tier"] = service_tier
    return params


def usage_from(usage: Any) -> UsageMetadata | None:
    """``UsageMetadata`` from a ``ResponseUsage`` (None when absent or invalid: ``_usage``)."""
    if usage is None:
        return None
    inputs = getattr(usage, "input_tokens_details", None)
    outputs = getattr(usage, "output_tokens_details", None)
    counts = read_counts(
        PROVIDER,
        {
            "input_tokens": getattr(usage, "input_tokens", None),
            "output_tokens": getattr(usage, "output_tokens", None),
            "cached_tokens": getattr(inputs, "cached_tokens", None),
            "cache_write_tokens": getattr(inputs, "cache_write_tokens", None),
            "reasoning_tokens": getattr(outputs, "reasoning_tokens", None),
        },
    )
    if counts is None:
        return None
    input_tokens, output_tokens = counts["input_tokens"] or 0, counts["output_tokens"] or 0
    return UsageMetadata(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
        cached_input_tokens=counts["cached_tokens"],
        cache_write_tokens=counts["cache_write_tokens"],
        reasoning_tokens=counts["reasoning_tokens"],
    )


def reasoning_part(item: Any, model: str) -> Part:
    """A thought part for a reasoning item, carrying what the model needs back."""
    pieces: list[Any] = item.summary or []
    summary: list[str] = [s.text for s in pieces]
    data: dict[str, Any] = {"id": item.id, "encrypted_content": item.encrypted_content}
    if len(summary) > 1:
        data["summary"] = summary  # the joined text alone cannot give the pieces back
    return Part(
        thought=True,
        text="\n\n".join(summary) or None,
        provider_data=ProviderData(provider=PROVIDER, model=model, data=data),
    )


def _citation(annotation: Any, text: str) -> Citation:
    fields = annotation.model_dump(exclude={"type"})
    start, end = fields.get("start_index"), fields.get("end_index")
    cited = text[start:end] if isinstance(start, int) and isinstance(end, int) else None
    return Citation(
        type=annotation.type,
        cited_text=cited,
        title=fields.pop("title", None),
        url=fields.pop("url", None),
        data=fields,  # start/end locate the cited span in the answer, not in the source
    )


def _message_parts(item: Any, refusals: list[str]) -> list[Part]:
    parts: list[Part] = []
    pieces: list[Any] = item.content or []
    for piece in pieces:
        if piece.type == "refusal":
            refusals.append(piece.refusal)
        elif piece.type == "output_text" and piece.text:
            annotations: list[Any] = piece.annotations or []
            cites = [_citation(a, piece.text) for a in annotations]
            parts.append(Part(text=piece.text, citations=cites or None))
    return parts


def _finish(response: Any) -> str:
    if response.status == "incomplete":
        reason = getattr(response.incomplete_details, "reason", None) or "incomplete"
        return _INCOMPLETE.get(reason, reason.upper())
    return "STOP"


def response_from(response: Any, model: str, output: list[Any] | None = None) -> LlmResponse:
    """The complete ``LlmResponse`` for a finished ``Response``.

    ``output`` replaces ``response.output`` when given (a stream's items).
    A refusal with nothing else gives ``error_code="REFUSAL"``.
    """
    parts: list[Part] = []
    refusals: list[str] = []
    malformed: list[str] = []
    for item in response.output if output is None else output:
        if item.type == "reasoning":
            parts.append(reasoning_part(item, model))
        elif item.type == "message":
            parts.extend(_message_parts(item, refusals))
        elif item.type == "function_call":
            args = parse_arguments(item.arguments)
            if args is None:
                malformed.append(item.name)
                continue
            call = FunctionCall(id=item.call_id, name=item.name, args=args)
            parts.append(Part(function_call=call))
    answer = any(not p.thought for p in parts)
    fields = finish_fields(_finish(response), has_content=answer)
    if malformed:
        fields["error_code"] = "MALFORMED_FUNCTION_CALL"
        fields["error_message"] = f"arguments of {', '.join(malformed)} are not a JSON object"
    elif refusals and not answer:
        fields.update(error_code="REFUSAL", error_message="".join(refusals))
    return LlmResponse(
        content=Content(role="model", parts=parts) if parts else None,
        usage_metadata=usage_from(response.usage),
        model_version=response.model,
        response_id=response.id,
        service_tier=response.service_tier,
        **fields,
    )
