"""Anthropic's own payload shapes for tests: messages and their SSE streams.

Shaped like real Messages API traffic (field for field, including the fields
steadyflow ignores): a web-search answer whose server tool ran, with the
final cumulative usage only in ``message_delta``; a cached prompt; errors.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.hostile import Reply, sse

MODEL = "claude-test-sonnet"  # not a real name: an SDK deprecation list never names it
SSE_HEADERS = {"content-type": "text/event-stream"}

CITATION = {
    "type": "web_search_result_location",
    "cited_text": "The Eiffel Tower is 330 metres tall.",
    "url": "https://example.org/eiffel",
    "title": "Eiffel Tower facts",
    "encrypted_index": "EpMBCioIBxgCIiQ4ODk4YTFkY",
}
SEARCH_CALL = {
    "type": "server_tool_use",
    "id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
    "name": "web_search",
    "input": {"query": "eiffel tower height"},
}
SEARCH_RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
    "content": [
        {
            "type": "web_search_result",
            "title": "Eiffel Tower facts",
            "url": "https://example.org/eiffel",
            "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y",
            "page_age": "April 30, 2025",
        }
    ],
}
# Two model iterations around the search: message_start counts the first only.
START_USAGE = {
    "input_tokens": 2679,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
    "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
    "output_tokens": 3,
    "service_tier": "standard",
}
FINAL_USAGE = {
    "input_tokens": 10682,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
    "output_tokens": 510,
    "server_tool_use": {"web_search_requests": 1},
}
SEARCH_TEXT = ("I'll look that up.", "It is 330 metres tall.")


def message(content: list[dict[str, Any]], usage: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": content,
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": usage,
        **fields,
    }


def search_message() -> dict[str, Any]:
    """The web-search answer, non-streamed: final usage, service tier included."""
    content = [
        {"type": "text", "text": SEARCH_TEXT[0], "citations": None},
        SEARCH_CALL,
        SEARCH_RESULT,
        {"type": "text", "text": SEARCH_TEXT[1], "citations": [CITATION]},
    ]
    return message(content, {**FINAL_USAGE, "service_tier": "standard"})


def _event(data: dict[str, Any]) -> tuple[str, str]:
    return (str(data["type"]), json.dumps(data))


def _block(index: int, block: dict[str, Any], *deltas: dict[str, Any]) -> list[tuple[str, str]]:
    events = [_event({"type": "content_block_start", "index": index, "content_block": block})]
    events += [_event({"type": "content_block_delta", "index": index, "delta": d}) for d in deltas]
    return [*events, _event({"type": "content_block_stop", "index": index})]


def search_events() -> list[tuple[str, str]]:
    """The same answer as ``search_message``, as the API streams it."""
    start = message([], START_USAGE, stop_reason=None)
    query = json.dumps(SEARCH_CALL["input"])
    return [
        _event({"type": "message_start", "message": start}),
        ("ping", '{"type": "ping"}'),
        *_block(0, {"type": "text", "text": ""}, {"type": "text_delta", "text": SEARCH_TEXT[0]}),
        *_block(
            1,
            {**SEARCH_CALL, "input": {}},
            {"type": "input_json_delta", "partial_json": query[:9]},
            {"type": "input_json_delta", "partial_json": query[9:]},
        ),
        *_block(2, SEARCH_RESULT),
        *_block(
            3,
            {"type": "text", "text": "", "citations": []},
            {"type": "citations_delta", "citation": CITATION},
            {"type": "text_delta", "text": SEARCH_TEXT[1]},
        ),
        _event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": FINAL_USAGE,
            }
        ),
        _event({"type": "message_stop"}),
    ]


def json_reply(body: dict[str, Any] | bytes, status: int = 200) -> Reply:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return Reply(status=status, body=[data], framing="length")


def sse_reply(events: list[tuple[str, str]], **fields: Any) -> Reply:
    return Reply(headers=SSE_HEADERS, body=sse(*events), **fields)
