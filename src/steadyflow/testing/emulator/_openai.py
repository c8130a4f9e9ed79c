"""OpenAI Chat Completions on the wire: ``POST /v1/chat/completions``.

Close enough to the real API that the official ``openai`` SDK parses every
answer: ``chat.completion`` objects, ``chat.completion.chunk`` SSE events
with tool-call arguments split across chunks, the usage chunk when
``stream_options.include_usage`` is set, and ``data: [DONE]``.

Requests are checked as strictly as the real API checks them, each refusal
answered with OpenAI's own 400 body (``invalid_request_error``): unknown
request or message fields, a ``tool`` message that does not answer the
preceding assistant ``tool_calls`` (or names an id they do not have),
``tool_calls`` left without their ``tool`` answers, missing content, and an
empty content array.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ..._json import is_array, is_object
from ._dialect import Dialect, Route, SseEvent, WireError, sse
from ._faults import Fault
from ._model import EmulatedRequest, Reply, ToolCall, ToolResult, ToolSpec, Turn, next_id

__all__ = ["OpenAIDialect"]

_FINISH = {"stop": "stop", "length": "length", "safety": "content_filter"}
_ERROR_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


# The request fields of Chat Completions (openai's ``CompletionCreateParams``).
_FIELDS = frozenset(
    "audio frequency_penalty function_call functions logit_bias logprobs max_completion_tokens "
    "max_tokens messages metadata modalities model moderation n parallel_tool_calls prediction "
    "presence_penalty prompt_cache_key prompt_cache_options prompt_cache_retention "
    "reasoning_effort response_format safety_identifier seed service_tier stop store stream "
    "stream_options temperature tool_choice tools top_logprobs top_p user verbosity "
    "web_search_options".split()
)
_MESSAGE_FIELDS = {
    "system": {"role", "content", "name"},
    "developer": {"role", "content", "name"},
    "user": {"role", "content", "name"},
    "assistant": {"role", "content", "name", "tool_calls", "refusal", "audio", "function_call"},
    "tool": {"role", "content", "tool_call_id"},
}


class _ToolTurns:
    """Which ``tool_calls`` of the last assistant message still await their ``tool`` answer."""

    def __init__(self) -> None:
        self.ids: set[str] | None = None  # None: the previous message made no calls
        self.pending: set[str] = set()

    def message(self, index: int, message: dict[str, Any]) -> None:
        role = message["role"]
        if role == "tool":
            call_id = message.get("tool_call_id")
            if self.ids is None:
                raise WireError(
                    f"Invalid parameter: messages with role 'tool' must be a response to a "
                    f"preceeding message with 'tool_calls'. (messages.[{index}].role)"
                )
            if call_id not in self.ids:
                raise WireError(
                    f"Invalid parameter: 'tool_call_id' of {call_id!r} not found in "
                    f"'tool_calls' of previous message. (messages.[{index}])"
                )
            self.pending.discard(call_id)
            return
        self.end()
        calls = message.get("tool_calls") if role == "assistant" else None
        self.ids = {str(c.get("id")) for c in calls if is_object(c)} if calls else None
        self.pending = set(self.ids or ())

    def end(self) -> None:
        if self.pending:
            missing = ", ".join(sorted(self.pending))
            raise WireError(
                "An assistant message with 'tool_calls' must be followed by tool messages "
                "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {missing}"
            )


def _check_message(index: int, message: Any) -> None:
    if not is_object(message) or message.get("role") not in _MESSAGE_FIELDS:
        role = message.get("role") if is_object(message) else None
        raise WireError(
            f"Invalid value: {role!r}. Supported values are: 'system', 'assistant', "
            f"'user', 'tool', and 'developer'. (messages[{index}].role)"
        )
    role = message["role"]
    unknown = sorted(set(message) - _MESSAGE_FIELDS[role])
    if unknown:
        raise WireError(
            f"Additional properties are not allowed ({unknown[0]!r} was unexpected) - "
            f"'messages.{index}'"
        )
    content = message.get("content")
    if content is None and not (role == "assistant" and message.get("tool_calls")):
        raise WireError(
            "Invalid value for 'content': expected a string, got null. "
            f"(messages.[{index}].content)"
        )
    if is_array(content) and not content:
        raise WireError(
            f"Invalid 'messages[{index}].content': empty array. Expected an array with minimum "
            "length 1, but got an empty array instead."
        )


def _text_of(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if is_array(content):
        return "".join(p.get("text", "") for p in content if is_object(p))
    raise WireError(f"message content must be a string or a list of parts, got {content!r}")


def _args_of(raw: Any) -> dict[str, Any]:
    try:
        args = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return {"_raw": raw}
    return args if is_object(args) else {"_value": args}


def _result_of(content: str) -> Any:
    try:
        return json.loads(content)
    except json.JSONDecodeError:
        return content


class OpenAIDialect(Dialect):
    """The OpenAI (and OpenAI-compatible) Chat Completions API."""

    provider = "openai"

    def route(self, method: str, path: str) -> Route | None:
        """Serve ``POST .../chat/completions``."""
        if method == "POST" and path.rstrip("/").endswith("/chat/completions"):
            return Route(self.provider)
        return None

    def parse(self, body: dict[str, Any], request: EmulatedRequest) -> None:
        """Read model, messages and tools."""
        if not isinstance(body.get("model"), str):
            raise WireError("you must provide a model parameter")
        messages = body.get("messages")
        if not is_array(messages) or not messages:
            raise WireError("'messages' must be a non-empty array")
        unknown = sorted(set(body) - _FIELDS)
        if unknown:
            raise WireError(f"Unrecognized request argument supplied: {unknown[0]}")
        if "stream_options" in body and not body.get("stream"):
            raise WireError(
                "The 'stream_options' parameter is only allowed when 'stream' is enabled."
            )
        turns = _ToolTurns()
        for index, message in enumerate(messages):
            _check_message(index, message)
            turns.message(index, message)
        turns.end()
        request.model = body["model"]
        request.stream = bool(body.get("stream"))
        names: dict[str, str] = {}
        system: list[str] = []
        for message in messages:
            self._add_message(message, request, system, names)
        request.system = "\n\n".join(system)
        for tool in body.get("tools") or ():
            fn: dict[str, Any] = tool.get("function") or {}
            request.tools.append(
                ToolSpec(fn.get("name", ""), fn.get("description", ""), fn.get("parameters") or {})
            )

    def _add_message(
        self, message: Any, request: EmulatedRequest, system: list[str], names: dict[str, str]
    ) -> None:
        if not is_object(message) or "role" not in message:
            raise WireError(f"each message needs a role, got {message!r}")
        role, text = message["role"], _text_of(message.get("content"))
        if role in ("system", "developer"):
            system.append(text)
        elif role == "user":
            request.turns.append(Turn("user", text=text))
        elif role == "assistant":
            calls: list[ToolCall] = []
            for raw in message.get("tool_calls") or ():
                fn: dict[str, Any] = raw.get("function") or {}
                calls.append(
                    ToolCall(fn.get("name", ""), _args_of(fn.get("arguments")), raw.get("id"))
                )
                names[raw.get("id", "")] = fn.get("name", "")
            request.turns.append(Turn("model", text=text, calls=calls))
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if not call_id:
                raise WireError("messages with role 'tool' must have a 'tool_call_id'")
            result = ToolResult(names.get(call_id, ""), _result_of(text), call_id)
            last = request.last
            if last is not None and last.role == "user" and last.results and not last.text:
                last.results.append(result)
            else:
                request.turns.append(Turn("user", results=[result]))
        else:
            raise WireError(f"unknown message role {role!r}")

    def _usage(self, reply: Reply, request: EmulatedRequest) -> dict[str, Any]:
        """OpenAI's usage object, with the token details it always sends (nothing cached)."""
        usage = reply.usage_for(request)
        return {
            "prompt_tokens": usage.input_tokens,
            "completion_tokens": usage.output_tokens,
            "total_tokens": usage.total_tokens,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        }

    def _finish(self, reply: Reply) -> str:
        if reply.finish == "stop" and reply.tool_calls:
            return "tool_calls"
        return _FINISH[reply.finish]

    def _envelope(self, request: EmulatedRequest, kind: str, rid: str) -> dict[str, Any]:
        envelope = {"id": rid, "object": kind, "created": int(time.time()), "model": request.model}
        return {**envelope, "service_tier": "default", "system_fingerprint": "fp_emulator"}

    def render(self, reply: Reply, request: EmulatedRequest) -> dict[str, Any]:
        """A ``chat.completion`` object."""
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        message["refusal"] = None
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id or next_id("call_"),
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.args)},
                }
                for call in reply.tool_calls
            ]
        choice: dict[str, Any] = {
            "index": 0,
            "message": message,
            "finish_reason": self._finish(reply),
        }
        choice["logprobs"] = None
        body = self._envelope(request, "chat.completion", next_id("chatcmpl-"))
        return {**body, "choices": [choice], "usage": self._usage(reply, request)}

    def render_stream(self, reply: Reply, request: EmulatedRequest) -> list[SseEvent]:
        """``chat.completion.chunk`` events, the usage chunk and ``[DONE]``."""
        base = self._envelope(request, "chat.completion.chunk", next_id("chatcmpl-"))
        deltas: list[dict[str, Any]] = [{"content": piece} for piece in reply.text_chunks()]
        for index, call in enumerate(reply.tool_calls):
            arguments = json.dumps(call.args)
            half = len(arguments) // 2
            head: dict[str, Any] = {
                "index": index,
                "id": call.id or next_id("call_"),
                "type": "function",
            }
            head["function"] = {"name": call.name, "arguments": ""}
            deltas.append({"tool_calls": [head]})
            for piece in (arguments[:half], arguments[half:]):
                deltas.append({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        if deltas:
            deltas[0] = {"role": "assistant", **deltas[0]}
        events = [
            sse(
                {**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]}, content=True
            )
            for d in deltas
        ]
        final: dict[str, Any] = {"index": 0, "delta": {}, "finish_reason": self._finish(reply)}
        events.append(sse({**base, "choices": [final]}))
        stream_options: dict[str, Any] = request.body.get("stream_options") or {}
        if stream_options.get("include_usage"):
            events.append(sse({**base, "choices": [], "usage": self._usage(reply, request)}))
        events.append(sse("[DONE]"))
        return events

    def error_body(self, status: int, message: str, fault: Fault | None) -> dict[str, Any]:
        """``{"error": {"message", "type", "param", "code"}}``."""
        kind, code = _ERROR_TYPES.get(status, ("server_error", None))
        return {"error": {"message": message, "type": kind, "param": None, "code": code}}
