"""Gemini ``generateContent`` on the wire, streamed and not.

Serves ``POST /{version}/models/{model}:generateContent`` and
``:streamGenerateContent?alt=sse`` close enough to the real API that the
official ``google-genai`` SDK parses every answer, including errors in the
``google.rpc.Status`` shape with a ``RetryInfo`` detail. Requests are checked
as strictly as the real API checks them (``_gemini_checks``). A model named
``gemini-3*`` behaves as Gemini 3: it signs the first function call of each
answer (a text answer: its text) and refuses a request that does not send the
signature back. A streamed function-call answer ends with an empty text
chunk, as Gemini's sometimes do. With ``includeThoughts`` every answer starts
with a thought part and its usage counts ``thoughtsTokenCount``.
"""

from __future__ import annotations

import re
from typing import Any

from ..._json import is_array, is_object
from ._dialect import Dialect, Route, SseEvent, WireError, sse
from ._faults import Fault
from ._gemini_checks import SignatureIssuer, check_request, is_gemini_3, signed_call, signed_text
from ._model import EmulatedRequest, Reply, ToolCall, ToolResult, ToolSpec, Turn, next_id

__all__ = ["GeminiDialect"]

_PATH = re.compile(
    r"(?:.*/)?models/(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent)"
)
_FINISH = {"stop": "STOP", "length": "MAX_TOKENS", "safety": "SAFETY"}
_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


# With ``includeThoughts`` the emulated model shows this thought summary first.
THOUGHT = "Looking at what was asked before answering."
THOUGHT_TOKENS = 9
_THOUGHT = {"text": THOUGHT, "thought": True}


def _shows_thoughts(request: EmulatedRequest) -> bool:
    body = request.body
    generation: dict[str, Any] = body.get("generationConfig") or body.get("generation_config") or {}
    thinking: dict[str, Any] = (
        generation.get("thinkingConfig") or generation.get("thinking_config") or {}
    )
    return bool(thinking.get("includeThoughts") or thinking.get("include_thoughts"))


def _parts_text(parts: list[dict[str, Any]]) -> str:
    return "".join(p.get("text", "") for p in parts if not p.get("thought"))


class GeminiDialect(Dialect):
    """The Gemini Developer API."""

    provider = "gemini"

    def __init__(self) -> None:
        self._signatures = SignatureIssuer()

    def route(self, method: str, path: str) -> Route | None:
        """Serve ``POST .../models/{model}:generateContent`` and its streaming twin."""
        match = _PATH.fullmatch(path)
        if method != "POST" or match is None:
            return None
        return Route(self.provider, match["model"], match["method"] == "streamGenerateContent")

    def parse(self, body: dict[str, Any], request: EmulatedRequest) -> None:
        """Read system instruction, contents and function declarations."""
        contents = body.get("contents")
        if not is_array(contents) or not contents:
            raise WireError("* GenerateContentRequest.contents: contents is not specified")
        for content in contents:
            if not is_object(content) or not is_array(content.get("parts")):
                raise WireError(f"* contents: each content needs parts, got {content!r}")
        check_request(body, request.model, self._signatures)
        system: dict[str, Any] = (
            body.get("systemInstruction") or body.get("system_instruction") or {}
        )
        request.system = _parts_text(system.get("parts") or [])
        for content in contents:
            request.turns.append(self._turn(content))
        for tool in body.get("tools") or ():
            for decl in tool.get("functionDeclarations") or ():
                schema: dict[str, Any] = (
                    decl.get("parametersJsonSchema")
                    or decl.get("parameters_json_schema")
                    or decl.get("parameters")
                    or {}
                )
                request.tools.append(
                    ToolSpec(decl.get("name", ""), decl.get("description", ""), schema)
                )

    def _turn(self, content: dict[str, Any]) -> Turn:
        turn = Turn("model" if content.get("role") == "model" else "user")
        turn.text = _parts_text(content["parts"])
        for part in content["parts"]:
            if "functionCall" in part:
                call = part["functionCall"]
                turn.calls.append(ToolCall(call["name"], call.get("args") or {}, call.get("id")))
            if "functionResponse" in part:
                result = part["functionResponse"]
                turn.results.append(
                    ToolResult(result["name"], result.get("response") or {}, result.get("id"))
                )
        return turn

    def _usage(self, reply: Reply, request: EmulatedRequest) -> dict[str, int]:
        usage = reply.usage_for(request)
        counts = {
            "promptTokenCount": usage.input_tokens,
            "candidatesTokenCount": usage.output_tokens,
            "totalTokenCount": usage.total_tokens,
        }
        if _shows_thoughts(request):
            counts["thoughtsTokenCount"] = THOUGHT_TOKENS
            counts["totalTokenCount"] += THOUGHT_TOKENS
        return counts

    def _call_part(self, call: ToolCall, model: str, signed: bool) -> dict[str, Any]:
        part: dict[str, Any] = {
            "functionCall": {
                "id": call.id or next_id("fc_emu"),
                "name": call.name,
                "args": call.args,
            }
        }
        if signed:
            part["thoughtSignature"] = self._signatures.issue(
                model, signed_call(call.name, call.args)
            )
        return part

    def _call_parts(self, reply: Reply, model: str) -> list[dict[str, Any]]:
        # Gemini 3 signs the first call of an answer only (parallel calls too).
        first = is_gemini_3(model)
        return [self._call_part(c, model, first and i == 0) for i, c in enumerate(reply.tool_calls)]

    def _text_signature(self, reply: Reply, model: str) -> dict[str, Any]:
        if not is_gemini_3(model) or reply.tool_calls or not reply.text:
            return {}
        return {"thoughtSignature": self._signatures.issue(model, signed_text(reply.text))}

    def _chunk(
        self, request: EmulatedRequest, candidate: dict[str, Any], rid: str
    ) -> dict[str, Any]:
        return {
            "candidates": [{**candidate, "index": 0}],
            "modelVersion": request.model,
            "responseId": rid,
        }

    def render(self, reply: Reply, request: EmulatedRequest) -> dict[str, Any]:
        """A ``GenerateContentResponse``."""
        model = request.model
        parts: list[dict[str, Any]] = [_THOUGHT] if _shows_thoughts(request) else []
        if reply.text:
            parts.append({"text": reply.text, **self._text_signature(reply, model)})
        parts += self._call_parts(reply, model)
        candidate: dict[str, Any] = {"finishReason": _FINISH[reply.finish]}
        if parts:
            candidate["content"] = {"role": "model", "parts": parts}
        body = self._chunk(request, candidate, next_id("resp_emu"))
        return {**body, "usageMetadata": self._usage(reply, request)}

    def render_stream(self, reply: Reply, request: EmulatedRequest) -> list[SseEvent]:
        """One SSE event per text chunk and per call, then the finish and usage.

        The finish chunk carries an empty text part: with a text answer's
        signature on Gemini 3, else (after calls) unsigned, as Gemini sends.
        """
        rid = next_id("resp_emu")
        parts: list[dict[str, Any]] = [_THOUGHT] if _shows_thoughts(request) else []
        parts += [{"text": piece} for piece in reply.text_chunks()]
        parts += self._call_parts(reply, request.model)
        events = [
            sse(
                self._chunk(request, {"content": {"role": "model", "parts": [p]}}, rid),
                content=True,
            )
            for p in parts
        ]
        final: dict[str, Any] = {"finishReason": _FINISH[reply.finish]}
        signature = self._text_signature(reply, request.model)
        if signature or reply.tool_calls:
            final["content"] = {"role": "model", "parts": [{"text": "", **signature}]}
        body = self._chunk(request, final, rid)
        events.append(sse({**body, "usageMetadata": self._usage(reply, request)}))
        return events

    def error_body(self, status: int, message: str, fault: Fault | None) -> dict[str, Any]:
        """A ``google.rpc.Status``, with ``RetryInfo`` when the fault sets ``retry_delay``."""
        error: dict[str, Any] = {"code": status, "message": message}
        error["status"] = _STATUS.get(status, "UNKNOWN")
        if fault is not None and fault.retry_delay is not None:
            error["details"] = [
                {
                    "@type": "type.googleapis.com/google.rpc.RetryInfo",
                    "retryDelay": fault.retry_delay,
                }
            ]
        return {"error": error}
