"""Reading a Responses API request as strictly as OpenAI does.

The real API answers 400 for a parameter it does not know, an input item of
an unknown type or with an unknown field, a ``function_call_output`` whose
``call_id`` no earlier ``function_call`` of the input has, a reasoning item
with nothing after it, reasoning content it did not issue (or issued for
another model), and a strict function tool whose schema strict mode cannot
enforce. The emulator does the same, with OpenAI's own error fields
(``param``, ``code``), so an adapter that gets any of it wrong fails here
before it fails in production.

Reasoning items carry ``encrypted_content``: opaque to the client, sealed
(``_sealed``) with the item id and the model. A function call issued after a
reasoning item and sent back with its own ``fc_`` id needs that reasoning
item before it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..._json import is_array, is_object
from ._dialect import WireError
from ._model import EmulatedRequest, ToolCall, ToolResult, ToolSpec, Turn
from ._sealed import seal, unseal

__all__ = ["ResponsesWireError", "issue_reasoning", "read_request"]

_PARAMETERS = frozenset(
    {
        "model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls",
        "stream", "stream_options", "store", "include", "reasoning", "text", "temperature",
        "top_p", "max_output_tokens", "max_tool_calls", "service_tier", "metadata", "user",
        "previous_response_id", "truncation", "background", "prompt_cache_key",
        "safety_identifier", "top_logprobs", "prompt", "conversation",
    }
)  # fmt: skip
_ITEM_FIELDS = {
    "message": frozenset({"type", "role", "content", "id", "status", "phase"}),
    "function_call": frozenset({"type", "call_id", "name", "arguments", "id", "status"}),
    "function_call_output": frozenset({"type", "call_id", "output", "id", "status"}),
    "reasoning": frozenset({"type", "id", "summary", "encrypted_content", "content", "status"}),
}
_REQUIRED = {
    "function_call": ("call_id", "name", "arguments"),
    "function_call_output": ("call_id", "output"),
    "reasoning": ("id", "summary"),
}
_TOOL_FIELDS = frozenset({"type", "name", "description", "parameters", "strict"})
_ROLES = ("user", "assistant", "system", "developer")


class ResponsesWireError(WireError):
    """A request the real API refuses, with OpenAI's ``param`` and ``code``."""

    def __init__(self, message: str, param: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.param = param
        self.code = code


def _unknown(name: str) -> ResponsesWireError:
    return ResponsesWireError(f"Unknown parameter: '{name}'.", name, "unknown_parameter")


def _missing(name: str) -> ResponsesWireError:
    message = f"Missing required parameter: '{name}'."
    return ResponsesWireError(message, name, "missing_required_parameter")


def issue_reasoning(item_id: str, model: str) -> str:
    """The encrypted content of reasoning item ``item_id`` from ``model``."""
    return seal({"id": item_id, "model": model})


def _check_reasoning(item: dict[str, Any], where: str, model: str, store: bool) -> None:
    content = item.get("encrypted_content")
    if content is None:
        if not store:
            raise ResponsesWireError(
                f"Item with id '{item['id']}' not found. Items are not persisted when `store` "
                "is set to false. Try again with `store` set to true, or remove this item "
                "from your input.",
                where,
            )
        return
    if unseal(content) != {"id": item["id"], "model": model}:
        raise ResponsesWireError(
            f"The encrypted content for item {item['id']} could not be verified.",
            f"{where}.encrypted_content",
            "invalid_encrypted_content",
        )


def _text(content: Any, where: str) -> str:
    if isinstance(content, str):
        return content
    if not is_array(content):
        raise ResponsesWireError(f"Invalid type for '{where}': expected a string or an array.")
    texts: list[str] = []
    for n, piece in enumerate(content):
        kind = piece.get("type") if is_object(piece) else None
        if kind not in ("input_text", "output_text", "input_image", "input_file", "refusal"):
            raise ResponsesWireError(f"Invalid value: '{kind}'.", f"{where}[{n}].type")
        texts.append(piece.get("text", ""))
    return "".join(texts)


def _model_turn(request: EmulatedRequest) -> Turn:
    last = request.last
    if last is None or last.role != "model":
        last = Turn("model")
        request.turns.append(last)
    return last


def _add_item(
    item: dict[str, Any], where: str, request: EmulatedRequest, calls: dict[str, str]
) -> None:
    kind = item.get("type", "message")
    if kind == "message":
        role = item.get("role")
        if role not in _ROLES:
            raise ResponsesWireError(f"Invalid value: '{role}'.", f"{where}.role")
        text = _text(item.get("content"), f"{where}.content")
        if role in ("system", "developer"):
            request.system = "\n\n".join(filter(None, (request.system, text)))
        elif role == "assistant":
            _model_turn(request).text += text
        else:
            request.turns.append(Turn("user", text=text))
    elif kind == "function_call":
        calls[item["call_id"]] = item["name"]
        args = json.loads(item["arguments"] or "{}")
        _model_turn(request).calls.append(ToolCall(item["name"], args, item["call_id"]))
    elif kind == "function_call_output":
        call_id = item["call_id"]
        if call_id not in calls:
            message = f"No tool call found for function call output with call_id {call_id}."
            raise ResponsesWireError(message, "input")
        output = item["output"]
        result = ToolResult(calls[call_id], _parsed(output), call_id)
        last = request.last
        if last is not None and last.role == "user" and last.results and not last.text:
            last.results.append(result)
        else:
            request.turns.append(Turn("user", results=[result]))


def _parsed(output: Any) -> Any:
    try:
        return json.loads(output) if isinstance(output, str) else output
    except json.JSONDecodeError:
        return output


def _check_reasoned_call(item: dict[str, Any], seen: set[str], reasoned: Mapping[str, str]) -> None:
    reasoning = reasoned.get(str(item.get("id")))
    if reasoning is not None and reasoning not in seen:
        raise ResponsesWireError(
            f"Item '{item['id']}' of type 'function_call' was provided without its required "
            f"'reasoning' item: '{reasoning}'.",
            "input",
        )


def _check_item(item: Any, where: str, following: Any, model: str, store: bool) -> None:
    if not is_object(item):
        raise ResponsesWireError(f"Invalid type for '{where}': expected an object.", where)
    kind = item.get("type", "message")
    fields = _ITEM_FIELDS.get(kind)
    if fields is None:
        raise ResponsesWireError(f"Invalid value: '{kind}'.", f"{where}.type", "invalid_value")
    for name in item:
        if name not in fields:
            raise _unknown(f"{where}.{name}")
    for name in _REQUIRED.get(kind, ()):
        if name not in item:
            raise _missing(f"{where}.{name}")
    if kind == "reasoning":
        if not _follows_reasoning(following):
            raise ResponsesWireError(
                f"Item '{item['id']}' of type 'reasoning' was provided without its required "
                "following item.",
                "input",
            )
        _check_reasoning(item, where, model, store)


def _follows_reasoning(item: Any) -> bool:
    """Whether ``item`` can follow a reasoning item: more reasoning, or what it led to."""
    if not is_object(item):
        return False
    kind = item.get("type", "message")
    return kind in ("reasoning", "function_call") or item.get("role") == "assistant"


def _tool(tool: Any, n: int) -> ToolSpec:
    where = f"tools[{n}]"
    if not is_object(tool) or tool.get("type") != "function":
        raise ResponsesWireError(f"Invalid value for '{where}.type'.", f"{where}.type")
    for name in tool:
        if name not in _TOOL_FIELDS:
            raise _unknown(f"{where}.{name}")
    if "name" not in tool:
        raise _missing(f"{where}.name")
    schema: dict[str, Any] = tool.get("parameters") or {}
    if tool.get("strict", True) and schema.get("additionalProperties") is not False:
        raise ResponsesWireError(
            f"Invalid schema for function '{tool['name']}': In context=(), "
            "'additionalProperties' is required to be supplied and to be false.",
            f"{where}.parameters",
            "invalid_function_parameters",
        )
    return ToolSpec(tool["name"], tool.get("description") or "", schema)


def read_request(
    body: dict[str, Any], request: EmulatedRequest, reasoned: Mapping[str, str]
) -> None:
    """Fill ``request`` from a ``POST /v1/responses`` body, refusing what OpenAI refuses.

    ``reasoned`` maps the id of each function call the emulator issued after
    a reasoning item to that item's id: a call sent back with its id needs
    its reasoning item before it, as on the real API.

    Raises:
        ResponsesWireError: the real API's 400 for the first problem found.
    """
    for name in body:
        if name not in _PARAMETERS:
            raise _unknown(name)
    if not isinstance(body.get("model"), str):
        raise _missing("model")
    if body.get("previous_response_id"):
        raise ResponsesWireError("The emulator stores no responses.", "previous_response_id")
    request.model, request.stream = body["model"], bool(body.get("stream"))
    request.system = str(body.get("instructions") or "")
    items = body.get("input")
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    if not is_array(items):
        raise _missing("input")
    store = body.get("store", True) is not False
    calls: dict[str, str] = {}
    seen: set[str] = set()
    for n, item in enumerate(items):
        following = items[n + 1] if n + 1 < len(items) else None
        _check_item(item, f"input[{n}]", following, request.model, store)
        if item.get("type") == "function_call":
            _check_reasoned_call(item, seen, reasoned)
        seen.add(str(item.get("id")))
        _add_item(item, f"input[{n}]", request, calls)
    request.tools.extend(_tool(tool, n) for n, tool in enumerate(body.get("tools") or ()))
