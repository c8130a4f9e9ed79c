"""Anthropic usage is exact: the same answer gives the same counts streamed and not.

On Anthropic's own payload shapes: a web-search answer whose server tool ran
two model iterations reports its cumulative input in ``message_delta``, not
in ``message_start``; cache reads and writes count inside ``input_tokens``.
"""

from __future__ import annotations

import json

import pytest

from steadyflow.errors import ModelConnectionError
from steadyflow.models import LlmRequest, LlmResponse
from steadyflow.models.anthropic import Anthropic
from steadyflow.types import Content, UsageMetadata
from tests.models.anthropic_payloads import (
    MODEL,
    START_USAGE,
    json_reply,
    message,
    search_events,
    search_message,
    sse_reply,
)
from tests.support.hostile import HostileServer

MODES = pytest.mark.parametrize("stream", [False, True], ids=["none", "sse"])
REQUEST = LlmRequest(contents=[Content.from_text("How tall is the Eiffel Tower?")])


async def final(hostile: HostileServer, stream: bool) -> LlmResponse:
    llm = Anthropic(MODEL, api_key="test-key", base_url=hostile.url)
    try:
        responses = [r async for r in llm.generate_content_async(REQUEST, stream=stream)]
    finally:
        await llm.aclose()
    return responses[-1]


def script(hostile: HostileServer, stream: bool) -> None:
    hostile.script(sse_reply(search_events()) if stream else json_reply(search_message()))


@MODES
async def test_a_multi_iteration_server_tool_answer_counts_the_final_usage(
    hostile: HostileServer, stream: bool
) -> None:
    script(hostile, stream)
    response = await final(hostile, stream)
    assert response.usage_metadata == UsageMetadata(
        input_tokens=10682,
        output_tokens=510,
        total_tokens=11192,
        cached_input_tokens=0,
        cache_write_tokens=0,
    )


async def test_streamed_and_non_streamed_answers_are_the_same_response(
    hostile: HostileServer,
) -> None:
    script(hostile, stream=False)
    whole = await final(hostile, stream=False)
    script(hostile, stream=True)
    streamed = await final(hostile, stream=True)
    assert streamed == whole
    assert whole.response_id == "msg_01XFDUDYJgAACzvnptvVoYEL"
    assert whole.service_tier == "standard"


async def test_citations_come_with_the_text_they_support(hostile: HostileServer) -> None:
    script(hostile, stream=True)
    response = await final(hostile, stream=True)
    assert response.content is not None
    first, cited = response.content.parts
    assert first.citations is None
    assert cited.citations is not None
    (citation,) = cited.citations
    assert (citation.type, citation.url, citation.title) == (
        "web_search_result_location",
        "https://example.org/eiffel",
        "Eiffel Tower facts",
    )
    assert citation.cited_text == "The Eiffel Tower is 330 metres tall."
    assert citation.data == {"encrypted_index": "EpMBCioIBxgCIiQ4ODk4YTFkY"}


@MODES
async def test_cache_reads_and_writes_count_inside_the_input(
    hostile: HostileServer, stream: bool
) -> None:
    usage = {**START_USAGE, "cache_read_input_tokens": 2000, "cache_creation_input_tokens": 300}
    body = message([{"type": "text", "text": "ok"}], {**usage, "output_tokens": 12})
    if stream:
        start = message([], usage, stop_reason=None)
        hostile.script(
            sse_reply(
                [
                    (
                        "message_start",
                        f'{{"type": "message_start", "message": {json.dumps(start)}}}',
                    ),
                    (
                        "message_delta",
                        '{"type": "message_delta", "delta": {"stop_reason": "end_turn"}, '
                        '"usage": {"output_tokens": 12}}',
                    ),
                    ("message_stop", '{"type": "message_stop"}'),
                ]
            )
        )
    else:
        hostile.script(json_reply(body))
    response = await final(hostile, stream)
    assert response.usage_metadata == UsageMetadata(
        input_tokens=2679 + 2000 + 300,
        output_tokens=12,
        total_tokens=2679 + 2000 + 300 + 12,
        cached_input_tokens=2000,
        cache_write_tokens=300,
    )


async def test_a_stream_cut_before_message_stop_carries_the_usage_it_reported(
    hostile: HostileServer,
) -> None:
    cut = [e for e in search_events() if '"message_stop"' not in e[1]]
    hostile.script(sse_reply(cut))
    llm = Anthropic(MODEL, api_key="test-key", base_url=hostile.url)
    try:
        with pytest.raises(ModelConnectionError) as caught:
            _ = [r async for r in llm.generate_content_async(REQUEST, stream=True)]
    finally:
        await llm.aclose()
    assert caught.value.usage is not None
    assert (caught.value.usage.input_tokens, caught.value.usage.output_tokens) == (10682, 510)


@pytest.mark.parametrize(
    "usage",
    [{"input_tokens": -100000, "output_tokens": 9}, {"input_tokens": "lots", "output_tokens": 9}],
    ids=["negative", "not a number"],
)
async def test_an_invalid_usage_report_is_no_usage(
    hostile: HostileServer, usage: dict[str, object]
) -> None:
    hostile.script(json_reply(message([{"type": "text", "text": "Hi."}], usage)))
    response = await final(hostile, stream=False)
    assert response.text == "Hi." and response.usage_metadata is None
