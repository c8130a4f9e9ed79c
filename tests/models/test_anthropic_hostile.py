"""The Anthropic adapter against bodies no honest server sends, and an early stop.

A stream without ``message_stop`` or a JSON body (without a Content-Length)
cut mid-document is a ``ModelConnectionError`` (retried while nothing was
yielded); invalid UTF-8
and an answer that is no message are typed errors naming the provider and
keeping the body; an error payload under 200 is the HTTP error it stands
for; stopping early closes the connection at once.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Literal

import pytest
import pytest_asyncio

from steadyflow import LlmAgent, RetryConfig, RunConfig, StreamingMode
from steadyflow.errors import ModelConnectionError, ModelHTTPError, ModelResponseError
from steadyflow.models import LlmRequest
from steadyflow.models.anthropic import Anthropic
from steadyflow.retry._config import DEFAULT_RETRYABLE_STATUS_CODES as CODES
from steadyflow.testing import FakeClock
from steadyflow.testing.harness import run_turn
from steadyflow.types import Content
from tests.models.anthropic_payloads import MODEL, json_reply, message, search_events, sse_reply
from tests.support.hostile import HostileServer, Reply

MODES = pytest.mark.parametrize("stream", [False, True], ids=["none", "sse"])
REQUEST = LlmRequest(contents=[Content.from_text("How tall is the Eiffel Tower?")])
OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
ANSWER = message([{"type": "text", "text": "330 metres."}], {"input_tokens": 9, "output_tokens": 4})


@pytest_asyncio.fixture
async def llm(hostile: HostileServer) -> AsyncIterator[Anthropic]:
    adapter = Anthropic(MODEL, api_key="test-key", base_url=hostile.url)
    yield adapter
    await adapter.aclose()


async def call(llm: Anthropic, stream: bool) -> None:
    async for _ in llm.generate_content_async(REQUEST, stream=stream):
        pass


def cut_stream(events: int, **fields: object) -> Reply:
    return sse_reply(search_events()[:events], **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "reply",
    [
        cut_stream(6),
        cut_stream(3, framing="close"),
        Reply(
            headers={"content-type": "text/event-stream"},
            body=[b"event: message_start\ndata: {"],
            framing="close",
        ),
    ],
    ids=["chunked-end-before-message_stop", "close-delimited", "cut-mid-event"],
)
async def test_a_stream_without_message_stop_is_a_connection_error(
    reply: Reply, hostile: HostileServer, llm: Anthropic
) -> None:
    hostile.script(reply)
    with pytest.raises(ModelConnectionError, match="message_stop"):
        await call(llm, stream=True)
    assert llm.is_exception_retryable(ModelConnectionError("x"), CODES)


@pytest.mark.parametrize("framing", ["chunked", "close"])
async def test_a_json_body_cut_mid_document_is_a_connection_error(
    framing: Literal["chunked", "close"], hostile: HostileServer, llm: Anthropic
) -> None:
    hostile.script(Reply(body=[json.dumps(ANSWER).encode()[:40]], framing=framing))
    with pytest.raises(ModelConnectionError, match="cut"):
        await call(llm, stream=False)


@pytest.mark.parametrize("stream", [False, True], ids=["none", "sse"])
async def test_a_cut_answer_is_retried_when_nothing_was_yielded(
    stream: bool, hostile: HostileServer, llm: Anthropic, clock: FakeClock
) -> None:
    cut = cut_stream(2) if stream else Reply(body=[b'{"id": "msg_1", "type": "mess'])
    whole = sse_reply(search_events()) if stream else json_reply(ANSWER)
    hostile.script(cut, whole)
    agent = LlmAgent(name="a", model=llm, instruction="Answer.")
    mode = StreamingMode.SSE if stream else StreamingMode.NONE
    config = RunConfig(streaming_mode=mode, retry_config=RetryConfig(max_attempts=2))
    result = await run_turn(agent, "How tall?", run_config=config)
    assert result.error is None
    assert len(hostile.requests) == 2
    assert [e.text for e in result.events if not e.partial][-1]


@MODES
async def test_invalid_utf8_is_a_response_error_that_keeps_the_body(
    stream: bool, hostile: HostileServer, llm: Anthropic
) -> None:
    text = b'{"type": "text_delta", "text": "\xff\xfe"}'
    if stream:
        body = [b"event: content_block_delta\ndata: " + text + b"\n\n"]
        hostile.script(Reply(headers={"content-type": "text/event-stream"}, body=body))
    else:
        hostile.script(Reply(body=[text], framing="length"))
    with pytest.raises(ModelResponseError) as caught:
        await call(llm, stream)
    assert caught.value.provider == "anthropic"
    assert "text_delta" in caught.value.body
    assert not llm.is_exception_retryable(caught.value, CODES)


@MODES
async def test_an_error_payload_under_200_is_the_http_error_it_stands_for(
    stream: bool, hostile: HostileServer, llm: Anthropic
) -> None:
    hostile.script(json_reply(OVERLOADED))
    with pytest.raises(ModelHTTPError) as caught:
        await call(llm, stream)
    assert caught.value.status_code == 529
    assert caught.value.body == OVERLOADED
    assert llm.is_exception_retryable(caught.value, CODES)


async def test_a_200_body_that_is_no_message_is_a_response_error(
    hostile: HostileServer, llm: Anthropic
) -> None:
    hostile.script(json_reply({"unexpected": True}))
    with pytest.raises(ModelResponseError) as caught:
        await call(llm, stream=False)
    assert caught.value.provider == "anthropic"
    assert caught.value.body == {"unexpected": True}


async def test_an_overloaded_error_event_before_any_text_is_retried(
    hostile: HostileServer, llm: Anthropic, clock: FakeClock
) -> None:
    start = search_events()[:2]
    hostile.script(
        sse_reply([*start, ("error", json.dumps(OVERLOADED))]), sse_reply(search_events())
    )
    agent = LlmAgent(name="a", model=llm, instruction="Answer.")
    config = RunConfig(streaming_mode=StreamingMode.SSE, retry_config=RetryConfig(max_attempts=2))
    result = await run_turn(agent, "How tall?", run_config=config)
    assert result.error is None
    assert len(hostile.requests) == 2
    assert clock.sleeps == [pytest.approx(0.5, rel=0.25)]


async def test_an_error_event_after_text_is_not_retried(
    hostile: HostileServer, llm: Anthropic, clock: FakeClock
) -> None:
    hostile.script(sse_reply([*search_events()[:5], ("error", json.dumps(OVERLOADED))]))
    agent = LlmAgent(name="a", model=llm, instruction="Answer.")
    config = RunConfig(streaming_mode=StreamingMode.SSE, retry_config=RetryConfig(max_attempts=2))
    result = await run_turn(agent, "How tall?", run_config=config)
    assert isinstance(result.error, ModelHTTPError) and result.error.status_code == 529
    assert len(hostile.requests) == 1


async def test_stopping_early_closes_the_connection_at_once(
    hostile: HostileServer, llm: Anthropic
) -> None:
    hostile.script(sse_reply(search_events()[:5], ending="hang"))
    responses = llm.generate_content_async(REQUEST, stream=True)
    first = await responses.__anext__()
    assert first.partial
    loop = asyncio.get_running_loop()
    stopped_at = loop.time()
    await responses.aclose()  # type: ignore[attr-defined]
    await asyncio.wait_for(hostile.closed_by_client.wait(), timeout=2)
    assert hostile.closed_at[0] - stopped_at < 0.1
