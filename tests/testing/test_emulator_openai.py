"""The emulator's Chat Completions dialect refuses what the real API refuses, in OpenAI's shape."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from steadyflow.testing.emulator import ProviderEmulator

CALL = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
ASKED = {"role": "user", "content": "hi"}
CALLED = {"role": "assistant", "content": None, "tool_calls": [CALL]}
ANSWERED = {"role": "tool", "tool_call_id": "call_1", "content": "{}"}


def chat(*messages: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"model": "gpt-x", "messages": list(messages), **fields}


REFUSED = [
    (chat(ASKED, ANSWERED), "must be a response to a preceeding message with 'tool_calls'"),
    (chat(ASKED, CALLED, {**ANSWERED, "tool_call_id": "call_9"}), "'call_9' not found"),
    (chat(ASKED, CALLED), "did not have response messages: call_1"),
    (chat(ASKED, CALLED, ASKED), "did not have response messages: call_1"),
    (chat(ASKED, {"role": "assistant", "content": None}), "expected a string, got null"),
    (chat({"role": "user", "content": []}), "empty array"),
    (chat(ASKED, temperature=0, top_k=3), "Unrecognized request argument supplied: top_k"),
    (chat({**ASKED, "thought": True}), "('thought' was unexpected)"),
    (chat({"role": "model", "content": "hi"}), "Invalid value: 'model'"),
    (chat(ASKED, stream_options={"include_usage": True}), "only allowed when 'stream'"),
]


@pytest.mark.parametrize(("body", "message"), REFUSED)
async def test_a_request_the_api_refuses_gets_its_400_body(
    body: dict[str, Any], message: str
) -> None:
    async with ProviderEmulator(["never"]) as emu:
        async with httpx.AsyncClient(base_url=emu.openai_base_url) as client:
            response = await client.post("/chat/completions", json=body)
        assert response.status_code == 400
        error = response.json()["error"]
        assert message in error["message"]
        assert error["type"] == "invalid_request_error"
        assert emu.script_remaining == 1


async def test_a_tool_turn_answered_in_order_is_accepted() -> None:
    second = {**CALL, "id": "call_2"}
    body = chat(
        ASKED,
        {**CALLED, "tool_calls": [CALL, second]},
        ANSWERED,
        {**ANSWERED, "tool_call_id": "call_2"},
        {"role": "user", "content": [{"type": "text", "text": "thanks"}]},
        reasoning_effort="low",
        stream=True,
        stream_options={"include_usage": True},
    )
    async with ProviderEmulator(["ok"]) as emu:
        async with httpx.AsyncClient(base_url=emu.openai_base_url) as client:
            response = await client.post("/chat/completions", json=body)
    assert response.status_code == 200, response.text
