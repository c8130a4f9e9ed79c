"""OpenAI Responses API on the wire: ``POST /v1/responses``.

Close enough to the real API that the official ``openai`` SDK parses every
answer: ``response`` objects whose ``output`` holds reasoning items, an
assistant ``message`` and ``function_call`` items; and the SSE sequence
``response.created``, ``response.in_progress``, per item
``response.output_item.added`` / deltas / ``response.output_item.done``, then
``response.completed`` (or ``response.incomplete``), every event numbered by
``sequence_number``. Requests are checked as strictly as OpenAI does (see
``_responses_input``).

The emulated model reasons when the request asks for it (``reasoning``) or
the model name is a reasoning model's (``o3``, ``gpt-5``...): a reasoning item
comes first, with a summary when ``reasoning.summary`` is set and the
emulator's own ``encrypted_content`` when ``include`` asks for it.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ...models._responses_wire import is_reasoning_model
from ._dialect import Route, SseEvent, WireError, sse
from ._model import EmulatedRequest, Reply, next_id
from ._openai import OpenAIDialect
from ._responses_input import ResponsesWireError, issue_reasoning, read_request

__all__ = ["ResponsesDialect"]

_INCOMPLETE = {"length": "max_output_tokens", "safety": "content_filter"}


def _reasons(request: EmulatedRequest) -> bool:
    reasoning: dict[str, Any] = request.body.get("reasoning") or {}
    effort = reasoning.get("effort")
    return effort not in (None, "none") or is_reasoning_model(request.model)


def _summary(request: EmulatedRequest) -> str:
    last = request.last
    if last is not None and last.results:
        return "**Reading the tool results**\n\nThe results answer the question."
    return f"**Planning**\n\nThe user asks: {request.last_user_text[:80]}"


class ResponsesDialect(OpenAIDialect):
    """The OpenAI Responses API (errors in the same shape as Chat Completions)."""

    provider = "openai-responses"

    def __init__(self) -> None:
        self._reasoned: dict[str, str] = {}  # issued function call id -> its reasoning item id

    def route(self, method: str, path: str) -> Route | None:
        """Serve ``POST .../responses``."""
        if method == "POST" and path.rstrip("/").endswith("/v1/responses"):
            return Route(self.provider)
        return None

    def parse(self, body: dict[str, Any], request: EmulatedRequest) -> None:
        """Read and check model, instructions, input items and tools."""
        read_request(body, request, self._reasoned)

    def wire_error_body(self, error: WireError) -> dict[str, Any]:
        """OpenAI's 400 body, with the ``param`` and ``code`` of the problem."""
        body = self.error_body(400, str(error), None)
        if isinstance(error, ResponsesWireError):
            body["error"].update(param=error.param, code=error.code)
        return body

    # -- the answer ---------------------------------------------------------------

    def _items(self, reply: Reply, request: EmulatedRequest) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        if _reasons(request):
            item_id = next_id("rs_")
            wants: dict[str, Any] = request.body.get("reasoning") or {}
            summary = wants.get("summary") or wants.get("generate_summary")
            include: list[Any] = request.body.get("include") or []
            items.append(
                {
                    "id": item_id,
                    "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": _summary(request)}]
                    if summary
                    else [],
                    "encrypted_content": issue_reasoning(item_id, request.model)
                    if "reasoning.encrypted_content" in include
                    else None,
                }
            )
        if reply.text:
            text: dict[str, Any] = {
                "type": "output_text",
                "text": reply.text,
                "annotations": [],
                "logprobs": [],
            }
            items.append(
                {
                    "id": next_id("msg_"),
                    "type": "message",
                    "status": "completed",
                    "role": "assistant",
                    "content": [text],
                }
            )
        reasoning_id = items[0]["id"] if items and items[0]["type"] == "reasoning" else None
        for call in reply.tool_calls:
            call_id = next_id("fc_")
            if reasoning_id is not None:
                self._reasoned[call_id] = reasoning_id
            items.append(
                {
                    "id": call_id,
                    "type": "function_call",
                    "status": "completed",
                    "call_id": call.id or next_id("call_"),
                    "name": call.name,
                    "arguments": json.dumps(call.args),
                }
            )
        return items

    def _response(
        self, reply: Reply, request: EmulatedRequest, items: list[dict[str, Any]], rid: str
    ) -> dict[str, Any]:
        body = request.body
        usage = reply.usage_for(request)
        thought = sum(
            len(s["text"]) for i in items if i["type"] == "reasoning" for s in i["summary"]
        )
        reasoning = min(usage.output_tokens, max(1, thought // 4)) if _reasons(request) else 0
        incomplete = _INCOMPLETE.get(reply.finish)
        tier = body.get("service_tier") or "auto"
        return {
            "id": rid,
            "object": "response",
            "created_at": int(time.time()),
            "status": "incomplete" if incomplete else "completed",
            "error": None,
            "incomplete_details": {"reason": incomplete} if incomplete else None,
            "instructions": body.get("instructions"),
            "max_output_tokens": body.get("max_output_tokens"),
            "model": request.model,
            "output": items,
            "parallel_tool_calls": True,
            "previous_response_id": None,
            "reasoning": body.get("reasoning") or {"effort": None, "summary": None},
            "service_tier": "default" if tier == "auto" else tier,
            "store": body.get("store", True),
            "temperature": body.get("temperature", 1.0),
            "text": body.get("text") or {"format": {"type": "text"}},
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools") or [],
            "top_p": body.get("top_p", 1.0),
            "truncation": "disabled",
            "usage": {
                "input_tokens": usage.input_tokens,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": usage.output_tokens,
                "output_tokens_details": {"reasoning_tokens": reasoning},
                "total_tokens": usage.total_tokens,
            },
            "metadata": body.get("metadata") or {},
        }

    def render(self, reply: Reply, request: EmulatedRequest) -> dict[str, Any]:
        """A ``response`` object."""
        return self._response(reply, request, self._items(reply, request), next_id("resp_"))

    def render_stream(self, reply: Reply, request: EmulatedRequest) -> list[SseEvent]:
        """The Responses SSE events, numbered; text, summary and argument deltas are content."""
        rid = next_id("resp_")
        items = self._items(reply, request)
        final = self._response(reply, request, items, rid)
        started: dict[str, Any] = {**final, "status": "in_progress", "output": [], "usage": None}
        started["incomplete_details"] = None
        stream = _Stream()
        stream.add("response.created", {"response": started})
        stream.add("response.in_progress", {"response": started})
        chunks = reply.text_chunks()
        for index, item in enumerate(items):
            _item_events(stream, index, item, chunks)
        stream.add(f"response.{final['status']}", {"response": final})
        return stream.events


class _Stream:
    """SSE events with their ``type`` and ``sequence_number`` filled in."""

    def __init__(self) -> None:
        self.events: list[SseEvent] = []

    def add(self, kind: str, data: dict[str, Any], content: bool = False) -> None:
        payload = {"type": kind, "sequence_number": len(self.events), **data}
        self.events.append(sse(payload, event=kind, content=content))


def _item_events(stream: _Stream, index: int, item: dict[str, Any], chunks: list[str]) -> None:
    at = {"output_index": index}
    ids = {"item_id": item["id"], **at}
    kind = item["type"]
    if kind == "reasoning":
        stream.add("response.output_item.added", {**at, "item": {**item, "summary": []}})
        for n, piece in enumerate(item["summary"]):
            part = {**ids, "summary_index": n}
            stream.add(
                "response.reasoning_summary_part.added", {**part, "part": {**piece, "text": ""}}
            )
            stream.add(
                "response.reasoning_summary_text.delta", {**part, "delta": piece["text"]}, True
            )
            stream.add("response.reasoning_summary_text.done", {**part, "text": piece["text"]})
            stream.add("response.reasoning_summary_part.done", {**part, "part": piece})
    elif kind == "message":
        added: dict[str, Any] = {**item, "status": "in_progress", "content": []}
        stream.add("response.output_item.added", {**at, "item": added})
        text = item["content"][0]
        part = {**ids, "content_index": 0}
        stream.add("response.content_part.added", {**part, "part": {**text, "text": ""}})
        for piece in chunks:
            stream.add("response.output_text.delta", {**part, "delta": piece, "logprobs": []}, True)
        stream.add("response.output_text.done", {**part, "text": text["text"], "logprobs": []})
        stream.add("response.content_part.done", {**part, "part": text})
    else:
        added = {**item, "status": "in_progress", "arguments": ""}
        stream.add("response.output_item.added", {**at, "item": added})
        arguments = item["arguments"]
        half = len(arguments) // 2
        for piece in (arguments[:half], arguments[half:]):
            stream.add("response.function_call_arguments.delta", {**ids, "delta": piece}, True)
        stream.add("response.function_call_arguments.done", {**ids, "arguments": arguments})
    stream.add("response.output_item.done", {**at, "item": item})
