"""One answer in OpenAI's own shapes, streamed and not: the same response, the usage as sent.

The payloads follow what the Responses API sends for a reasoning model that
thinks, says a sentence and calls a tool (ids, fields and event order as
OpenAI documents and sends them; the reasoning item's ``encrypted_content``
is partial in ``response.output_item.added`` and whole only in ``.done`` and
in ``response.completed``). Served by the hostile server, byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from steadyflow.models import LlmRequest, LlmResponse
from steadyflow.models.openai import OpenAIResponses
from steadyflow.types import Content, UsageMetadata
from tests.models.providers import SECRET
from tests.support.hostile import HostileServer, Reply, sse

pytestmark = pytest.mark.asyncio(loop_scope="module")

MODEL = "o3"
SUMMARY = "**Checking the order**\n\nThe user wants order 812; I should look it up."
ENCRYPTED = "gAAAAABoSx3fY2VeT0lMd1p6bUZzS0p3b1c4Q2tTa2pQZk5xRExYcUl0WjJ3dGNtX3Nv"
REASONING = {
    "id": "rs_6876cf02e0bc8192b74af0fb64b715ff06fa2fcced15a5ac",
    "type": "reasoning",
    "summary": [{"type": "summary_text", "text": SUMMARY}],
    "encrypted_content": ENCRYPTED,
}
MESSAGE = {
    "id": "msg_6876cf054f58819284ecc1058131305506fa2fcced15a5ac",
    "type": "message",
    "status": "completed",
    "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": "Checking."}],
    "role": "assistant",
}
CALL = {
    "id": "fc_6876cf0583a48192b5b4f6b0dbff58f006fa2fcced15a5ac",
    "type": "function_call",
    "status": "completed",
    "arguments": '{"order_id":"812"}',
    "call_id": "call_kcS7tO1V8qbGlcWbuAMi2nDx",
    "name": "lookup_order",
}
USAGE = {
    "input_tokens": 1873,
    "input_tokens_details": {"cached_tokens": 1536},
    "output_tokens": 412,
    "output_tokens_details": {"reasoning_tokens": 320},
    "total_tokens": 2285,
}
RESPONSE: dict[str, Any] = {
    "id": "resp_6876cf01f5e0819299d1e5fde1d2fb8306fa2fcced15a5ac",
    "object": "response",
    "created_at": 1752616705,
    "status": "completed",
    "background": False,
    "error": None,
    "incomplete_details": None,
    "instructions": "Answer questions about orders.",
    "max_output_tokens": None,
    "max_tool_calls": None,
    "model": "o3-2025-04-16",
    "output": [REASONING, MESSAGE, CALL],
    "parallel_tool_calls": True,
    "previous_response_id": None,
    "prompt_cache_key": None,
    "reasoning": {"effort": "medium", "summary": "auto"},
    "safety_identifier": None,
    "service_tier": "default",
    "store": False,
    "temperature": 1.0,
    "text": {"format": {"type": "text"}, "verbosity": "medium"},
    "tool_choice": "auto",
    "tools": [],
    "top_logprobs": 0,
    "top_p": 1.0,
    "truncation": "disabled",
    "usage": USAGE,
    "user": None,
    "metadata": {},
}


def stream_events() -> list[tuple[str, dict[str, Any]]]:
    started = {**RESPONSE, "status": "in_progress", "output": [], "usage": None}
    rs, msg, fc = (item["id"] for item in (REASONING, MESSAGE, CALL))
    summary = {"item_id": rs, "output_index": 0, "summary_index": 0}
    text = {"item_id": msg, "output_index": 1, "content_index": 0}
    piece = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
    half = len(SUMMARY) // 2
    return [
        ("response.created", {"response": started}),
        ("response.in_progress", {"response": started}),
        (
            "response.output_item.added",
            {
                "output_index": 0,
                "item": {**REASONING, "summary": [], "encrypted_content": ENCRYPTED[:20]},
            },
        ),
        (
            "response.reasoning_summary_part.added",
            {**summary, "part": {"type": "summary_text", "text": ""}},
        ),
        (
            "response.reasoning_summary_text.delta",
            {**summary, "delta": SUMMARY[:half], "obfuscation": "x1"},
        ),
        (
            "response.reasoning_summary_text.delta",
            {**summary, "delta": SUMMARY[half:], "obfuscation": "x2"},
        ),
        ("response.reasoning_summary_text.done", {**summary, "text": SUMMARY}),
        (
            "response.reasoning_summary_part.done",
            {**summary, "part": {"type": "summary_text", "text": SUMMARY}},
        ),
        ("response.output_item.done", {"output_index": 0, "item": REASONING}),
        (
            "response.output_item.added",
            {"output_index": 1, "item": {**MESSAGE, "status": "in_progress", "content": []}},
        ),
        ("response.content_part.added", {**text, "part": piece}),
        (
            "response.output_text.delta",
            {**text, "delta": "Checking", "logprobs": [], "obfuscation": "a"},
        ),
        ("response.output_text.delta", {**text, "delta": ".", "logprobs": [], "obfuscation": "b"}),
        ("response.output_text.done", {**text, "text": "Checking.", "logprobs": []}),
        ("response.content_part.done", {**text, "part": {**piece, "text": "Checking."}}),
        ("response.output_item.done", {"output_index": 1, "item": MESSAGE}),
        (
            "response.output_item.added",
            {"output_index": 2, "item": {**CALL, "status": "in_progress", "arguments": ""}},
        ),
        (
            "response.function_call_arguments.delta",
            {"item_id": fc, "output_index": 2, "delta": '{"order_id":'},
        ),
        (
            "response.function_call_arguments.delta",
            {"item_id": fc, "output_index": 2, "delta": '"812"}'},
        ),
        (
            "response.function_call_arguments.done",
            {"item_id": fc, "output_index": 2, "arguments": CALL["arguments"]},
        ),
        ("response.output_item.done", {"output_index": 2, "item": CALL}),
        ("response.completed", {"response": RESPONSE}),
    ]


@pytest_asyncio.fixture(loop_scope="module")
async def server() -> AsyncIterator[HostileServer]:
    async with HostileServer() as hostile:
        yield hostile


async def answer(server: HostileServer, stream: bool) -> list[LlmResponse]:
    if stream:
        numbered = [
            (kind, json.dumps({"type": kind, "sequence_number": n, **data}))
            for n, (kind, data) in enumerate(stream_events())
        ]
        server.script(Reply(headers={"content-type": "text/event-stream"}, body=sse(*numbered)))
    else:
        server.script(Reply(body=[json.dumps(RESPONSE).encode()], framing="length"))
    llm = OpenAIResponses(MODEL, api_key=SECRET, base_url=f"{server.url}/v1")
    request = LlmRequest(contents=[Content.from_text("Where is order 812?")])
    try:
        return [r async for r in llm.generate_content_async(request, stream=stream)]
    finally:
        await llm.aclose()


async def test_streamed_and_non_streamed_answers_are_the_same_response(
    server: HostileServer,
) -> None:
    (whole,) = await answer(server, stream=False)
    *partials, streamed = await answer(server, stream=True)
    assert streamed == whole
    assert [(p.content.parts[0].thought, p.text) for p in partials] == [
        (True, ""),
        (True, ""),
        (None, "Checking"),
        (None, "."),
    ]


async def test_usage_is_what_openai_sent_with_cached_and_reasoning_tokens_inside(
    server: HostileServer,
) -> None:
    for stream in (False, True):
        usage = (await answer(server, stream))[-1].usage_metadata
        assert usage == UsageMetadata(
            input_tokens=1873,
            output_tokens=412,
            total_tokens=2285,
            cached_input_tokens=1536,
            reasoning_tokens=320,
        )


async def test_the_reasoning_item_is_kept_whole_for_the_model_that_issued_it(
    server: HostileServer,
) -> None:
    *_, streamed = await answer(server, stream=True)
    thought, text, call = streamed.content.parts
    assert (thought.thought, thought.text) == (True, SUMMARY)
    assert thought.provider_data is not None
    assert (thought.provider_data.provider, thought.provider_data.model) == (
        "openai-responses",
        MODEL,
    )
    assert thought.provider_data.data == {"id": REASONING["id"], "encrypted_content": ENCRYPTED}
    assert text.text == "Checking."
    assert (call.function_call.id, call.function_call.args) == (
        CALL["call_id"],
        {"order_id": "812"},
    )
    assert (streamed.response_id, streamed.service_tier) == (RESPONSE["id"], "default")
    assert (streamed.model_version, streamed.finish_reason) == ("o3-2025-04-16", "STOP")
