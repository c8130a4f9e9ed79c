"""The base of the OpenAI and Anthropic adapters: redirects, gateway headers, in-stream errors."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from steadyflow.errors import ModelHTTPError
from steadyflow.models import BaseLlm, LlmRequest
from steadyflow.models._stainless import stream_error_status
from steadyflow.models.anthropic import Anthropic
from steadyflow.models.openai import OpenAI, OpenAIResponses
from steadyflow.retry._config import DEFAULT_RETRYABLE_STATUS_CODES as CODES
from steadyflow.types import Content
from tests.models.providers import SECRET
from tests.support.hostile import HostileServer, Reply

GATEWAY_SECRET = "gw-Yt55-DO-NOT-LOG-9191"
PATHS = {
    "openai": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
    "anthropic": "/v1/messages",
}
ANSWERS = {
    "openai": {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-test",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "ok"},
                "finish_reason": "stop",
            }
        ],
    },
    "openai-responses": {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "status": "completed",
        "model": "gpt-test",
        "output": [
            {
                "id": "msg_1",
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "ok", "annotations": []}],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    },
    "anthropic": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
}
stainless = pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic"])


@pytest_asyncio.fixture
async def servers() -> AsyncIterator[tuple[HostileServer, HostileServer]]:
    async with HostileServer() as provider, HostileServer() as elsewhere:
        yield provider, elsewhere


def adapter(provider: str, server: HostileServer, **options: object) -> BaseLlm:
    if provider == "openai-responses":
        return OpenAIResponses("gpt-test", api_key=SECRET, base_url=f"{server.url}/v1", **options)  # type: ignore[arg-type]
    if provider == "openai":
        return OpenAI("gpt-test", api_key=SECRET, base_url=f"{server.url}/v1", **options)  # type: ignore[arg-type]
    return Anthropic("claude-test", api_key=SECRET, base_url=server.url, **options)  # type: ignore[arg-type]


async def call(llm: BaseLlm) -> str:
    try:
        request = LlmRequest(contents=[Content.from_text("hi")])
        return "".join([r.text or "" async for r in llm.generate_content_async(request)])
    finally:
        await llm.aclose()  # type: ignore[attr-defined]


@stainless
async def test_a_redirect_to_another_origin_is_not_followed_and_no_key_leaves(
    provider: str, servers: tuple[HostileServer, HostileServer]
) -> None:
    server, elsewhere = servers
    elsewhere.script(Reply(body=[json.dumps(ANSWERS[provider]).encode()], framing="length"))
    location = f"{elsewhere.url}{PATHS[provider]}"
    server.script(Reply(status=307, headers={"location": location}, framing="length"))
    llm = adapter(provider, server, headers={"x-gateway-key": GATEWAY_SECRET})
    with pytest.raises(ModelHTTPError) as caught:
        await call(llm)
    assert caught.value.status_code == 307
    assert caught.value.headers["location"] == location
    assert not llm.is_exception_retryable(caught.value, CODES)
    assert (len(server.requests), elsewhere.requests) == (1, [])


@stainless
async def test_gateway_headers_go_on_every_request_and_never_into_logs(
    provider: str, servers: tuple[HostileServer, HostileServer], caplog: pytest.LogCaptureFixture
) -> None:
    server, _ = servers
    server.script(Reply(body=[json.dumps(ANSWERS[provider]).encode()], framing="length"))
    caplog.set_level(logging.DEBUG)
    llm = adapter(provider, server, headers={"x-gateway-key": GATEWAY_SECRET})
    assert await call(llm) == "ok"
    assert server.requests[0].headers["x-gateway-key"] == GATEWAY_SECRET
    assert caplog.records, "the SDKs log at DEBUG; the check must see their records"
    for record in caplog.records:
        assert GATEWAY_SECRET not in record.getMessage() + repr(record.args)


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"type": "error", "error": {"type": "overloaded_error", "message": "m"}}, 529),
        ({"message": "busy", "type": "server_error", "code": None}, 500),
        ({"error": {"message": "over capacity", "type": "x", "status_code": 503}}, 503),
        ({"message": "slow down", "type": "tokens", "code": "rate_limit_exceeded"}, 429),
        ({"message": "bad", "type": "invalid_request_error"}, 400),
        ({"message": "?"}, 500),
        ("not a mapping", 500),
    ],
)
def test_an_error_inside_a_stream_stands_for_the_status_its_payload_names(
    body: object, status: int
) -> None:
    assert stream_error_status(body) == status
