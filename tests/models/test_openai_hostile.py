"""The OpenAI adapter against bodies real providers send and the emulator cannot.

Payloads are shaped as OpenAI and Groq send them (usage details, Groq's
``x_groq``, in-stream errors); the hostile hostile adds truncated, non-UTF-8
and error-under-200 bodies.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from steadyflow import LlmAgent, RetryConfig, RunConfig, StreamingMode
from steadyflow.errors import ModelConnectionError, ModelError, ModelHTTPError, ModelResponseError
from steadyflow.models import LlmRequest, LlmResponse
from steadyflow.models.openai import Groq, OpenAI
from steadyflow.retry._config import DEFAULT_RETRYABLE_STATUS_CODES as CODES
from steadyflow.testing import fake_clock
from steadyflow.testing.harness import run_turn
from steadyflow.types import Content, UsageMetadata
from tests.models.providers import SECRET
from tests.support.hostile import HostileServer, Reply, sse

SSE = {"content-type": "text/event-stream"}
USAGE = {
    "prompt_tokens": 1200,
    "completion_tokens": 340,
    "total_tokens": 1540,
    "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 256, "audio_tokens": 0},
}
EXPECTED_USAGE = UsageMetadata(
    input_tokens=1200,
    output_tokens=340,
    total_tokens=1540,
    cached_input_tokens=1024,
    reasoning_tokens=256,
)
ENVELOPE = {"id": "chatcmpl-B9x", "created": 1, "model": "o4-mini-2025", "service_tier": "default"}


def completion(content: str = "Order 812 shipped.", usage: Any = USAGE) -> bytes:
    message = {"role": "assistant", "content": content, "refusal": None}
    choice = {"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}
    body = {**ENVELOPE, "object": "chat.completion", "choices": [choice], "usage": usage}
    return json.dumps(body).encode()


def chunk(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> str:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    body = {**ENVELOPE, "object": "chat.completion.chunk", "choices": choices, **extra}
    return json.dumps(body)


def stream_of(*pieces: str, usage: Any = USAGE) -> list[str]:
    deltas = [chunk({"role": "assistant", "content": ""})]
    deltas += [chunk({"content": p}) for p in pieces]
    return [*deltas, chunk({}, "stop"), chunk(None, usage=usage), "[DONE]"]


@pytest_asyncio.fixture
async def llm(hostile: HostileServer) -> AsyncIterator[OpenAI]:
    adapter = OpenAI("o4-mini", api_key=SECRET, base_url=f"{hostile.url}/v1")
    yield adapter
    await adapter.aclose()


def request() -> LlmRequest:
    return LlmRequest(contents=[Content.from_text("Where is order 812?")])


async def collect(llm: OpenAI, stream: bool) -> list[LlmResponse]:
    return [r async for r in llm.generate_content_async(request(), stream=stream)]


async def failure(llm: OpenAI, stream: bool) -> tuple[list[LlmResponse], ModelError]:
    seen: list[LlmResponse] = []
    with pytest.raises(ModelError) as caught:
        async for response in llm.generate_content_async(request(), stream=stream):
            seen.append(response)
    return seen, caught.value


def retryable(llm: OpenAI, error: BaseException) -> bool:
    links = [error, error.__cause__, error.__context__]
    return any(llm.is_exception_retryable(e, CODES) for e in links if e is not None)


async def test_usage_details_are_the_same_streamed_and_not_and_equal_what_was_sent(
    hostile: HostileServer, llm: OpenAI
) -> None:
    hostile.script(
        Reply(body=[completion()], framing="length"),
        Reply(headers=SSE, body=sse(*stream_of("Order 812 ", "shipped."))),
    )
    (whole,) = await collect(llm, stream=False)
    *partials, streamed = await collect(llm, stream=True)
    assert whole.usage_metadata == streamed.usage_metadata == EXPECTED_USAGE
    assert [p.text for p in partials] == ["Order 812 ", "shipped."]
    assert (whole.text, streamed.text) == ("Order 812 shipped.",) * 2
    for response in (whole, streamed):
        assert (response.response_id, response.service_tier) == ("chatcmpl-B9x", "default")


async def test_groq_usage_that_arrives_only_in_x_groq_is_counted(hostile: HostileServer) -> None:
    groq_usage = {"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49}
    final = chunk({}, "stop", x_groq={"id": "req_01", "usage": {**groq_usage, "queue_time": 0.1}})
    events = [chunk({"role": "assistant", "content": "hi"}, x_groq={"id": "req_01"}), final]
    hostile.script(
        Reply(headers=SSE, body=sse(*events, "[DONE]")),
        Reply(body=[completion("hi", usage=groq_usage)], framing="length"),
    )
    llm = Groq("llama-3.3-70b-versatile", api_key=SECRET, base_url=f"{hostile.url}/v1")
    try:
        *_, streamed = await collect(llm, stream=True)  # type: ignore[arg-type]
        (whole,) = await collect(llm, stream=False)  # type: ignore[arg-type]
    finally:
        await llm.aclose()
    expected = UsageMetadata(input_tokens=40, output_tokens=9, total_tokens=49)
    assert streamed.usage_metadata == whole.usage_metadata == expected


@pytest.mark.parametrize(
    ("event", "status"),
    [
        ('{"error": {"message": "The hostile had an error", "type": "server_error"}}', 500),
        (("error", '{"error": {"message": "over capacity", "status_code": 503}}'), 503),
    ],
    ids=["openai-hostile-error", "groq-error-event"],
)
async def test_an_error_inside_a_200_stream_before_any_text_is_retried_by_its_status(
    event: str | tuple[str, str], status: int, hostile: HostileServer, llm: OpenAI
) -> None:
    hostile.script(Reply(headers=SSE, body=sse(event)))
    seen, error = await failure(llm, stream=True)
    assert isinstance(error, ModelHTTPError) and seen == []
    assert (error.status_code, error.provider) == (status, "openai")
    assert retryable(llm, error)


async def test_an_http_200_whose_body_is_an_error_keeps_the_providers_message(
    hostile: HostileServer, llm: OpenAI
) -> None:
    body = {"error": {"message": "Model overloaded", "type": "server_error", "code": None}}
    hostile.script(Reply(body=[json.dumps(body).encode()], framing="length"))
    _, error = await failure(llm, stream=False)
    assert isinstance(error, ModelHTTPError) and error.status_code == 500
    assert "Model overloaded" in str(error) and error.body == body
    assert retryable(llm, error)


@pytest.mark.parametrize(
    "reply",
    [
        Reply(headers=SSE, body=sse(*stream_of("Order 812 ")[:2])),
        Reply(
            headers=SSE,
            body=[*sse(stream_of("Order")[1]), b'data: {"id": "chatcm'],
            framing="close",
        ),
    ],
    ids=["chunked-clean-end", "close-delimited-cut"],
)
async def test_a_stream_without_its_finish_is_a_connection_error_not_an_answer(
    reply: Reply, hostile: HostileServer, llm: OpenAI
) -> None:
    hostile.script(reply)
    seen, error = await failure(llm, stream=True)
    assert isinstance(error, ModelConnectionError)
    assert all(r.partial for r in seen)
    assert retryable(llm, error)


async def test_a_json_body_cut_mid_document_is_a_connection_error(
    hostile: HostileServer, llm: OpenAI
) -> None:
    hostile.script(Reply(body=[completion()[:80]], framing="close"))
    _, error = await failure(llm, stream=False)
    assert isinstance(error, ModelConnectionError) and retryable(llm, error)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_invalid_utf8_is_a_response_error_naming_the_provider_with_the_body(
    stream: bool, hostile: HostileServer, llm: OpenAI
) -> None:
    if stream:
        body = [sse(stream_of("Order")[1])[0].replace(b"Order", b"Or\xff\xfeder")]
        hostile.script(Reply(headers=SSE, body=body))
    else:
        body = [completion().replace(b"Order", b"Or\xff\xfeder")]
        hostile.script(Reply(body=body, framing="length"))
    _, error = await failure(llm, stream=stream)
    assert isinstance(error, ModelResponseError) and error.provider == "openai"
    assert "openai model 'o4-mini'" in str(error)
    assert "Or\ufffd\ufffdder" in error.body
    assert not retryable(llm, error)


async def test_stopping_early_closes_the_provider_stream_at_once(
    hostile: HostileServer, llm: OpenAI
) -> None:
    hostile.script(Reply(headers=SSE, body=sse(*stream_of("Order ")[:2]), ending="hang"))
    responses = llm.generate_content_async(request(), stream=True)
    first = await anext(responses)
    assert first.text == "Order "
    loop = asyncio.get_running_loop()
    stopped_at = loop.time()
    await responses.aclose()
    await asyncio.wait_for(hostile.closed_by_client.wait(), timeout=5)
    assert hostile.closed_at[0] - stopped_at < 0.1


async def test_a_trailing_empty_text_chunk_after_a_call_adds_no_text_part(
    hostile: HostileServer, llm: OpenAI
) -> None:
    head = {"index": 0, "id": "call_1", "type": "function"}
    head["function"] = {"name": "lookup_order", "arguments": '{"order_id": '}
    rest = {"index": 0, "function": {"arguments": '"812"}'}}
    events = [
        chunk({"role": "assistant", "content": None, "tool_calls": [head]}),
        chunk({"tool_calls": [rest]}),
        chunk({"content": ""}),
        chunk({}, "tool_calls"),
        "[DONE]",
    ]
    hostile.script(Reply(headers=SSE, body=sse(*events)))
    (final,) = await collect(llm, stream=True)
    assert final.content is not None
    assert [
        (p.text, p.function_call.args if p.function_call else None) for p in final.content.parts
    ] == [(None, {"order_id": "812"})]


@pytest.mark.parametrize("cut", ["hostile-error", "no-finish"])
async def test_a_failed_stream_before_any_text_is_retried_and_the_turn_answers(
    cut: str, hostile: HostileServer, llm: OpenAI
) -> None:
    broken = {
        "hostile-error": sse(
            '{"error": {"message": "The hostile had an error", "type": "server_error"}}'
        ),
        "no-finish": sse(chunk({"role": "assistant", "content": ""})),
    }[cut]
    hostile.script(
        Reply(headers=SSE, body=broken),
        Reply(headers=SSE, body=sse(*stream_of("Order 812 ", "shipped."))),
    )
    agent = LlmAgent(name="support", model=llm)
    config = RunConfig(
        streaming_mode=StreamingMode.SSE, retry_config=RetryConfig(max_attempts=2, jitter_ratio=0)
    )
    with fake_clock():
        result = await run_turn(agent, "Where is order 812?", run_config=config)
    assert result.error is None
    assert result.final_text == "Order 812 shipped."
    assert len(hostile.requests) == 2
