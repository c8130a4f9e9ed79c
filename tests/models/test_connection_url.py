"""A connection error names the URL it tried, with credentials masked."""

from __future__ import annotations

import socket

import pytest

from steadyflow import Content
from steadyflow.errors import ModelConnectionError
from steadyflow.models import BaseLlm, LlmRequest
from steadyflow.models.anthropic import Anthropic
from steadyflow.models.gemini import Gemini
from steadyflow.models.openai import OpenAI


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def adapters(root: str) -> list[BaseLlm]:
    return [
        OpenAI("gpt-4o-mini", api_key="sk-test", base_url=f"{root}/v1"),
        Anthropic("claude-3-5-haiku-latest", api_key="sk-test", base_url=root),
        Gemini("gemini-2.0-flash", api_key="sk-test", base_url=root),
    ]


@pytest.mark.parametrize("index", [0, 1, 2], ids=["openai", "anthropic", "gemini"])
async def test_the_connection_error_names_the_url_without_its_password(index: int) -> None:
    port = closed_port()
    llm = adapters(f"http://proxy-user:hunter2@127.0.0.1:{port}")[index]
    request = LlmRequest(model=llm.model, contents=[Content.from_text("hi")])
    with pytest.raises(ModelConnectionError) as caught:
        async for _ in llm.generate_content_async(request):
            pass
    message = str(caught.value)
    assert f"connection to http://proxy-user:***@127.0.0.1:{port}/" in message
    assert "hunter2" not in message
