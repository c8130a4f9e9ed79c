"""Anthropic Messages on the wire: ``POST /v1/messages``.

Close enough to the real API that the official ``anthropic`` SDK parses every
answer: ``message`` objects with text and ``tool_use`` blocks, and the SSE
sequence ``message_start``, ``ping``, ``content_block_*`` (text deltas and
``input_json_delta`` pieces), ``message_delta`` with usage, ``message_stop``.

A request with ``thinking`` on gets extended thinking: the first answer of
a turn (not one to tool results) starts with a ``thinking`` block signed for
the model (streamed as
``thinking_delta`` and ``signature_delta``), plus a ``redacted_thinking``
block when the user message holds Anthropic's redaction trigger string.
Requests are checked as strictly as the real API checks them
(``_anthropic_checks``), answering its own 400 body.
"""

from __future__ import annotations

import json
from typing import Any

from ..._json import is_array, is_object
from ._anthropic_checks import REDACTION_TRIGGER, check_request, redacted_data, sign, thinking_on
from ._dialect import Dialect, Route, SseEvent, WireError, sse
from ._faults import Fault
from ._model import EmulatedRequest, Reply, ToolCall, ToolResult, ToolSpec, Turn, next_id

__all__ = ["AnthropicDialect"]

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if is_array(content) and all(is_object(b) for b in content):
        return content
    raise WireError(f"content must be a string or a list of blocks, got {content!r}")


def _result_content(content: Any) -> Any:
    text = content if isinstance(content, str) else ""
    if is_array(content):
        text = "".join(b.get("text", "") for b in content if is_object(b))
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


class AnthropicDialect(Dialect):
    """The Anthropic Messages API."""

    provider = "anthropic"

    def route(self, method: str, path: str) -> Route | None:
        """Serve ``POST /v1/messages``."""
        if method == "POST" and path.rstrip("/").endswith("/v1/messages"):
            return Route(self.provider)
        return None

    def parse(self, body: dict[str, Any], request: EmulatedRequest) -> None:
        """Read model, system, messages and tools."""
        for name in ("model", "max_tokens", "messages"):
            if name not in body:
                raise WireError(f"{name}: Field required")
        check_request(body)
        request.model = str(body["model"])
        request.stream = bool(body.get("stream"))
        system = body.get("system") or ""
        request.system = (
            system
            if isinstance(system, str)
            else "".join(b.get("text", "") for b in _blocks(system))
        )
        for message in body["messages"]:
            role = message.get("role") if is_object(message) else None
            if role not in ("user", "assistant"):
                raise WireError(f"messages: role must be 'user' or 'assistant', got {role!r}")
            request.turns.append(self._turn(role, _blocks(message.get("content", ""))))
        for tool in body.get("tools") or ():
            request.tools.append(
                ToolSpec(
                    tool.get("name", ""),
                    tool.get("description", ""),
                    tool.get("input_schema") or {},
                )
            )

    def _turn(self, role: str, blocks: list[dict[str, Any]]) -> Turn:
        turn = Turn("model" if role == "assistant" else "user")
        names: dict[str, str] = {}
        for block in blocks:
            kind = block.get("type")
            if kind == "text":
                turn.text += block.get("text", "")
            elif kind == "tool_use":
                turn.calls.append(
                    ToolCall(block["name"], block.get("input") or {}, block.get("id"))
                )
                names[block.get("id", "")] = block["name"]
            elif kind == "tool_result":
                call_id = block.get("tool_use_id")
                response = _result_content(block.get("content", ""))
                turn.results.append(ToolResult(names.get(call_id or "", ""), response, call_id))
        return turn

    def _stop_reason(self, reply: Reply) -> str:
        if reply.finish == "length":
            return "max_tokens"
        if reply.finish == "safety":
            return "refusal"
        return "tool_use" if reply.tool_calls else "end_turn"

    def _usage(self, reply: Reply, request: EmulatedRequest) -> dict[str, int]:
        usage = reply.usage_for(request)
        return {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }

    def _message(
        self, request: EmulatedRequest, content: list[Any], **fields: Any
    ) -> dict[str, Any]:
        return {
            "id": next_id("msg_emu"),
            "type": "message",
            "role": "assistant",
            "model": request.model,
            "content": content,
            "stop_sequence": None,
            **fields,
        }

    def _thoughts(self, reply: Reply, request: EmulatedRequest) -> list[dict[str, Any]]:
        """The thinking blocks that open the answer when the request turned thinking on."""
        last = request.last
        if not thinking_on(request.body) or (last and last.results and not last.text):
            return []  # Claude thinks once per turn, not again after each tool result
        plan = f"I should call {reply.tool_calls[0].name}." if reply.tool_calls else "I can answer."
        thinking = f"The user asks: {request.last_user_text[:80]!r}. {plan}"
        blocks = [
            {"type": "thinking", "thinking": thinking, "signature": sign(request.model, thinking)}
        ]
        if REDACTION_TRIGGER in request.last_user_text:
            blocks.append({"type": "redacted_thinking", "data": redacted_data(request.model)})
        return blocks

    def render(self, reply: Reply, request: EmulatedRequest) -> dict[str, Any]:
        """A ``message`` object."""
        content = self._thoughts(reply, request)
        if reply.text:
            content.append({"type": "text", "text": reply.text})
        for call in reply.tool_calls:
            content.append(
                {
                    "type": "tool_use",
                    "id": call.id or next_id("toolu_emu"),
                    "name": call.name,
                    "input": call.args,
                }
            )
        return self._message(
            request,
            content,
            stop_reason=self._stop_reason(reply),
            usage=self._usage(reply, request),
        )

    def render_stream(self, reply: Reply, request: EmulatedRequest) -> list[SseEvent]:
        """The Messages streaming event sequence."""
        usage = self._usage(reply, request)
        start = self._message(request, [], stop_reason=None, usage={**usage, "output_tokens": 1})
        events = [
            sse({"type": "message_start", "message": start}, "message_start"),
            sse({"type": "ping"}, "ping"),
        ]
        index = 0
        for block in self._thoughts(reply, request):
            events.extend(self._thought_events(index, block))
            index += 1
        if reply.text:
            events.append(self._block_start(index, {"type": "text", "text": ""}))
            for piece in reply.text_chunks():
                events.append(self._delta(index, {"type": "text_delta", "text": piece}))
            events.append(self._block_stop(index))
            index += 1
        for call in reply.tool_calls:
            block = {"type": "tool_use", "id": call.id or next_id("toolu_emu"), "name": call.name}
            events.append(self._block_start(index, {**block, "input": {}}, content=True))
            arguments = json.dumps(call.args)
            half = len(arguments) // 2
            for piece in (arguments[:half], arguments[half:]):
                events.append(
                    self._delta(index, {"type": "input_json_delta", "partial_json": piece})
                )
            events.append(self._block_stop(index))
            index += 1
        delta = {"stop_reason": self._stop_reason(reply), "stop_sequence": None}
        final = {
            "type": "message_delta",
            "delta": delta,
            "usage": {"output_tokens": usage["output_tokens"]},
        }
        events.append(sse(final, "message_delta"))
        events.append(sse({"type": "message_stop"}, "message_stop"))
        return events

    def _thought_events(self, index: int, block: dict[str, Any]) -> list[SseEvent]:
        """A thinking block as the API streams it: its text, then its signature."""
        if block["type"] == "redacted_thinking":
            return [self._block_start(index, block), self._block_stop(index)]
        text, half = block["thinking"], len(block["thinking"]) // 2
        return [
            self._block_start(index, {"type": "thinking", "thinking": "", "signature": ""}),
            self._delta(index, {"type": "thinking_delta", "thinking": text[:half]}, False),
            self._delta(index, {"type": "thinking_delta", "thinking": text[half:]}, False),
            self._delta(index, {"type": "signature_delta", "signature": block["signature"]}, False),
            self._block_stop(index),
        ]

    def _block_stop(self, index: int) -> SseEvent:
        return sse({"type": "content_block_stop", "index": index}, "content_block_stop")

    def _block_start(self, index: int, block: dict[str, Any], content: bool = False) -> SseEvent:
        data = {"type": "content_block_start", "index": index, "content_block": block}
        return sse(data, "content_block_start", content=content)

    def _delta(self, index: int, delta: dict[str, Any], content: bool = True) -> SseEvent:
        # Thinking deltas are not content: a client shows nothing of them.
        data = {"type": "content_block_delta", "index": index, "delta": delta}
        return sse(data, "content_block_delta", content=content)

    def malformed_event(self) -> SseEvent:
        """A ``content_block_delta`` event whose data is not JSON."""
        return SseEvent(b'event: content_block_delta\ndata: {"type": not json\n\n', content=True)

    def error_body(self, status: int, message: str, fault: Fault | None) -> dict[str, Any]:
        """``{"type": "error", "error": {"type", "message"}}``."""
        kind = _ERROR_TYPES.get(status, "api_error")
        return {
            "type": "error",
            "error": {"type": kind, "message": message},
            "request_id": next_id("req_emu"),
        }
