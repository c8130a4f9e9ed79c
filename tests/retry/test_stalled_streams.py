"""``stream_idle_timeout`` and ``first_byte_timeout``: a provider that goes silent is cut.

The hostile server answers, then hangs without a byte (``ending="hang"``).
The bounds run on the event loop's timer (kept tiny); retry waits go through
the fake clock, so nothing is slept by the test and no duration is asserted.
Each adapter answers one call first, so the SDK's first-call set-up (lazy
imports, the connection) is not what the tiny bound measures.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
import pytest_asyncio
from tests.support.hostile import HostileServer, Reply, sse

from steadyflow.errors import ModelTimeoutError
from steadyflow.models import BaseLlm, LlmRequest
from steadyflow.models.openai import OpenAI
from steadyflow.retry import RetryConfig
from steadyflow.retry._executor import generate_with_retries
from steadyflow.testing import FakeClock
from steadyflow.types import Content

SILENCE = 0.2
CHUNK = {
    "id": "chatcmpl-1",
    "object": "chat.completion.chunk",
    "created": 1,
    "model": "gpt-test",
    "choices": [{"index": 0, "delta": {"content": "hel"}, "finish_reason": None}],
}
LAST = {**CHUNK, "choices": [{"index": 0, "delta": {"content": "lo"}, "finish_reason": "stop"}]}
ANSWER = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-test",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
    ],
}
SSE = {"content-type": "text/event-stream"}


@pytest_asyncio.fixture
async def server() -> AsyncIterator[HostileServer]:
    async with HostileServer() as hostile:
        yield hostile


def chunks(*payloads: dict[str, object], hang: bool = False) -> Reply:
    events = [json.dumps(p) for p in payloads] + ([] if hang else ["[DONE]"])
    return Reply(headers=SSE, body=sse(*events), ending="hang" if hang else "complete")


async def collect(llm: BaseLlm, config: RetryConfig, stream: bool, seen: list[str]) -> None:
    clock = FakeClock()
    responses = generate_with_retries(
        llm,
        LlmRequest(contents=[Content.from_text("hi", role="user")]),
        stream=stream,
        config=config,
        before_attempt=lambda: None,
        clock=clock,
    )
    try:
        async for response in responses:
            seen.append(response.text)
    finally:
        await llm.aclose()  # type: ignore[attr-defined]


async def openai(server: HostileServer) -> OpenAI:
    """An adapter with no timeout of its own, warmed up by one answered call."""
    llm = OpenAI("gpt-test", api_key="k", base_url=server.url)
    server.script(Reply(body=[json.dumps(ANSWER).encode()], framing="length"))
    async for _ in llm.generate_content_async(LlmRequest(contents=[Content.from_text("hi")])):
        pass
    server.requests.clear()
    return llm


async def test_a_stream_silent_before_its_first_chunk_is_cut_and_retried(
    server: HostileServer,
) -> None:
    llm = await openai(server)
    server.script(chunks(hang=True), chunks(CHUNK, LAST))
    seen: list[str] = []
    config = RetryConfig(max_attempts=2, stream_idle_timeout=SILENCE)
    await collect(llm, config, True, seen)
    assert seen == ["hel", "lo", "hello"]
    assert len(server.requests) == 2


async def test_a_stream_that_stalls_after_output_fails_and_is_not_retried(
    server: HostileServer,
) -> None:
    llm = await openai(server)
    server.script(chunks(CHUNK, hang=True), chunks(CHUNK, LAST))
    seen: list[str] = []
    config = RetryConfig(max_attempts=3, stream_idle_timeout=SILENCE)
    with pytest.raises(ModelTimeoutError, match=r"next response within 0\.2s"):
        await collect(llm, config, True, seen)
    assert (seen, len(server.requests)) == (["hel"], 1)


async def test_a_silent_non_streamed_answer_is_cut_by_first_byte_timeout(
    server: HostileServer,
) -> None:
    llm = await openai(server)
    stalled = Reply(body=[], framing="chunked", ending="hang")
    server.script(stalled, Reply(body=[json.dumps(ANSWER).encode()], framing="length"))
    seen: list[str] = []
    config = RetryConfig(max_attempts=2, first_byte_timeout=SILENCE)
    await collect(llm, config, False, seen)
    assert (seen, len(server.requests)) == (["ok"], 2)


async def test_a_first_byte_timeout_past_its_retries_is_a_timeout_naming_it(
    server: HostileServer,
) -> None:
    llm = await openai(server)
    server.script(Reply(body=[], framing="chunked", ending="hang"))
    with pytest.raises(ModelTimeoutError, match=r"first response within 0\.2s"):
        await collect(llm, RetryConfig(first_byte_timeout=SILENCE), False, [])


def test_the_stall_bounds_are_off_by_default_and_take_timedeltas() -> None:
    assert (RetryConfig().stream_idle_timeout, RetryConfig().first_byte_timeout) == (None, None)
    config = RetryConfig(stream_idle_timeout=timedelta(seconds=30), first_byte_timeout=120)
    assert (config.stream_idle_timeout, config.first_byte_timeout) == (30.0, 120.0)


@pytest.mark.parametrize("field", ["stream_idle_timeout", "first_byte_timeout"])
@pytest.mark.parametrize("value", [0, -1, "5s"])
def test_a_bad_stall_bound_is_refused_by_name(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=field):
        RetryConfig(**{field: value})  # type: ignore[arg-type]
