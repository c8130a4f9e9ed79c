"""The provider emulator over plain HTTP: routing, counting, scripts, keys, lifecycle."""

from __future__ import annotations

import httpx
import pytest

from steadyflow.testing.emulator import Fault, ProviderEmulator, Reply, ToolCall

CHAT = {"model": "gpt-x", "messages": [{"role": "user", "content": "hi"}]}
MESSAGES = {"model": "claude-x", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
GEMINI = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
RESPONSES = {"model": "gpt-x", "input": "hi"}


async def post(emu: ProviderEmulator, path: str, body: object, **headers: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=emu.base_url, verify=False) as client:
        return await client.post(path, json=body, headers=headers)


async def test_each_wire_format_is_served_and_counted_per_endpoint() -> None:
    async with ProviderEmulator(["a", "b", "c", "d", "e"]) as emu:
        assert (await post(emu, "/v1/chat/completions", CHAT)).status_code == 200
        assert (await post(emu, "/v1/responses", RESPONSES)).status_code == 200
        assert (await post(emu, "/v1/messages", MESSAGES)).status_code == 200
        assert (await post(emu, "/v1/messages", MESSAGES)).status_code == 200
        path = "/v1beta/models/gemini-x:generateContent"
        assert (await post(emu, path, GEMINI)).status_code == 200
        counts = [emu.attempts(p) for p in ("openai", "openai-responses", "anthropic", "gemini")]
        assert (counts, emu.attempts()) == ([1, 1, 2, 1], 5)


async def test_requests_are_numbered_per_endpoint_and_recorded() -> None:
    async with ProviderEmulator(["a", "b", "c"]) as emu:
        await post(emu, "/v1/messages", MESSAGES)
        await post(emu, "/v1/chat/completions", CHAT)
        await post(emu, "/v1/messages", MESSAGES)
        assert [(r.provider, r.number, r.model) for r in emu.requests] == [
            ("anthropic", 1, "claude-x"),
            ("openai", 1, "gpt-x"),
            ("anthropic", 2, "claude-x"),
        ]


async def test_unknown_path_is_404_and_not_counted() -> None:
    async with ProviderEmulator() as emu:
        response = await post(emu, "/v2/nothing", {})
        assert response.status_code == 404 and "/v2/nothing" in response.text
        assert emu.attempts() == 0


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        ("/v1/chat/completions", {"model": "gpt-x"}, "messages"),
        ("/v1/messages", {"model": "c", "messages": []}, "max_tokens"),
        (
            "/v1/messages",
            {"model": "c", "max_tokens": 5, "messages": []},
            "at least one message is required",
        ),
        ("/v1/models/g:generateContent", {"contents": []}, "contents"),
        ("/v1/chat/completions", [1, 2], "JSON object"),
        ("/v1/responses", {"input": "hi"}, "model"),
    ],
)
async def test_invalid_request_is_400_in_the_providers_error_shape(
    path: str, body: object, message: str
) -> None:
    async with ProviderEmulator(["never"]) as emu:
        response = await post(emu, path, body)
        assert response.status_code == 400
        assert message in response.json()["error"]["message"]
        assert emu.script_remaining == 1


async def test_script_answers_in_order_then_reports_exhaustion() -> None:
    async with ProviderEmulator(["first", ToolCall("lookup_order", {"order_id": "1"})]) as emu:
        first = (await post(emu, "/v1/chat/completions", CHAT)).json()
        second = (await post(emu, "/v1/chat/completions", CHAT)).json()
        third = await post(emu, "/v1/chat/completions", CHAT)
    assert first["choices"][0]["message"]["content"] == "first"
    assert second["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "lookup_order"
    assert third.status_code == 400 and "no answer left for request 3" in third.text


async def test_a_faulted_request_does_not_use_up_a_scripted_answer() -> None:
    async with ProviderEmulator(["the answer"], faults=[Fault.http(503, on=1)]) as emu:
        failed = await post(emu, "/v1/chat/completions", CHAT)
        answered = (await post(emu, "/v1/chat/completions", CHAT)).json()
    assert failed.status_code == 503
    assert answered["choices"][0]["message"]["content"] == "the answer"


async def test_without_a_script_the_order_support_responder_answers() -> None:
    async with ProviderEmulator() as emu:
        body = (await post(emu, "/v1/chat/completions", CHAT)).json()
    assert "order number" in body["choices"][0]["message"]["content"]


async def test_required_api_key_is_checked_in_each_providers_header() -> None:
    async with ProviderEmulator(["a", "b", "c"], api_key="k1") as emu:
        wrong = await post(emu, "/v1/chat/completions", CHAT, authorization="Bearer nope")
        openai = await post(emu, "/v1/chat/completions", CHAT, authorization="Bearer k1")
        claude = await post(emu, "/v1/messages", MESSAGES, **{"x-api-key": "k1"})
        gemini = await post(emu, "/v1/models/g:generateContent", GEMINI, **{"x-goog-api-key": "k1"})
    assert [r.status_code for r in (wrong, openai, claude, gemini)] == [401, 200, 200, 200]


async def test_reset_starts_over_with_a_new_script_and_zero_counts() -> None:
    async with ProviderEmulator(["old"], faults=[Fault.http(500)]) as emu:
        await post(emu, "/v1/chat/completions", CHAT)
        emu.reset([Reply(text="new")])
        body = (await post(emu, "/v1/chat/completions", CHAT)).json()
        assert (emu.attempts(), body["choices"][0]["message"]["content"]) == (1, "new")


async def test_keep_alive_serves_several_requests_on_one_connection() -> None:
    async with ProviderEmulator(["a", "b"]) as emu:
        async with httpx.AsyncClient(base_url=emu.base_url, verify=False) as client:
            first = await client.post("/v1/chat/completions", json=CHAT)
            second = await client.post("/v1/chat/completions", json=CHAT)
        assert (first.status_code, second.status_code) == (200, 200)
        assert first.headers.get("connection") != "close"
        assert len(emu._connections) <= 1


def test_runs_in_a_background_thread_for_synchronous_code() -> None:
    emu = ProviderEmulator(["from a thread"])
    with emu.running_in_thread():
        response = httpx.post(f"{emu.openai_base_url}/chat/completions", json=CHAT)
    assert response.json()["choices"][0]["message"]["content"] == "from a thread"
    with pytest.raises(RuntimeError, match="not running"):
        _ = emu.base_url


async def test_env_points_every_sdk_at_the_emulator() -> None:
    async with ProviderEmulator() as emu:
        env = emu.env()
    assert env["OPENAI_BASE_URL"].endswith("/v1")
    assert env["ANTHROPIC_BASE_URL"] == env["GOOGLE_GEMINI_BASE_URL"]
    assert env["ANTHROPIC_BASE_URL"].startswith("http://127.0.0.1:")
    assert env["OPENAI_API_KEY"] == env["ANTHROPIC_API_KEY"] == env["GOOGLE_API_KEY"]
