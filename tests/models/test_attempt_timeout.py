"""An adapter's ``timeout`` bounds the whole attempt, not the gap between reads.

A server that sends a byte every 20 ms resets an HTTP read timeout each
time, so one attempt used to last as long as the server liked. Each adapter
here answers properly, but only after trickling whitespace (valid before
JSON) for far longer than its ``timeout``: the attempt is cut with
``ModelTimeoutError``. Nothing is slept in the test and no duration is asserted.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import pytest_asyncio

from steadyflow.errors import ModelTimeoutError
from steadyflow.models import BaseLlm, LlmRequest
from steadyflow.models.anthropic import Anthropic
from steadyflow.models.gemini import Gemini
from steadyflow.models.openai import OpenAI
from steadyflow.retry import RetryConfig
from steadyflow.retry._executor import generate_with_retries
from steadyflow.testing import FakeClock
from steadyflow.types import Content
from tests.support.hostile import HostileServer, Pause, Reply

TIMEOUT = 0.5
TRICKLE = [b" ", Pause(0.02)] * 150  # a byte each 20 ms: 3 s in all, six times the timeout

OPENAI_ANSWER = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-4o-mini",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "ok", "refusal": None},
            "finish_reason": "stop",
            "logprobs": None,
        }
    ],
}
ANTHROPIC_ANSWER = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-5",
    "content": [{"type": "text", "text": "ok"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 3, "output_tokens": 1},
}
GEMINI_ANSWER = {
    "candidates": [
        {"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}
    ],
    "modelVersion": "gemini-2.5-flash",
}

ADAPTERS: dict[str, tuple[Callable[[str], BaseLlm], dict[str, Any]]] = {
    "openai": (
        lambda url: OpenAI("gpt-4o-mini", api_key="k", base_url=url, timeout=TIMEOUT),
        OPENAI_ANSWER,
    ),
    "anthropic": (
        lambda url: Anthropic("claude-sonnet-5", api_key="k", base_url=url, timeout=TIMEOUT),
        ANTHROPIC_ANSWER,
    ),
    "gemini": (
        lambda url: Gemini("gemini-2.5-flash", api_key="k", base_url=url, timeout=TIMEOUT),
        GEMINI_ANSWER,
    ),
}


@pytest_asyncio.fixture
async def server() -> AsyncIterator[HostileServer]:
    async with HostileServer() as hostile:
        yield hostile


def answer(body: dict[str, Any], trickle: bool) -> Reply:
    pieces = [*TRICKLE, json.dumps(body).encode()] if trickle else [json.dumps(body).encode()]
    return Reply(body=pieces, framing="length")


async def texts(llm: BaseLlm, config: RetryConfig) -> list[str | None]:
    responses = generate_with_retries(
        llm,
        LlmRequest(contents=[Content.from_text("hi", role="user")]),
        stream=False,
        config=config,
        before_attempt=lambda: None,
        clock=FakeClock(),
    )
    try:
        return [r.text async for r in responses]
    finally:
        await llm.aclose()  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", list(ADAPTERS))
async def test_a_server_trickling_bytes_cannot_outlast_the_timeout(
    server: HostileServer, name: str
) -> None:
    make, body = ADAPTERS[name]
    server.script(answer(body, trickle=True))
    with pytest.raises(ModelTimeoutError):
        await texts(make(server.url), RetryConfig())


# Gemini is left out: after an attempt cut inside google-genai's body read, its
# client sends the retry on the same connection, still busy with the cut answer
# (reported to the Gemini adapter's owners; the loop-level retry is covered in
# tests/retry/test_attempt_deadline.py).
@pytest.mark.parametrize("name", ["openai", "anthropic"])
async def test_the_cut_attempt_is_retried_and_the_next_one_answers(
    server: HostileServer, name: str
) -> None:
    make, body = ADAPTERS[name]
    server.script(answer(body, trickle=True), answer(body, trickle=False))
    assert await texts(make(server.url), RetryConfig(max_attempts=2)) == ["ok"]
    assert len(server.requests) == 2
