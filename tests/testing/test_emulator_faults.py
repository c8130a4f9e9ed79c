"""Fault injection over plain HTTP: statuses, resets, stalls, broken streams, bad JSON, when."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from steadyflow.errors import ConfigurationError
from steadyflow.testing.emulator import Fault, ProviderEmulator, Reply, parse_fault

CHAT = {"model": "gpt-x", "messages": [{"role": "user", "content": "hi"}]}
STREAM = {**CHAT, "stream": True}


def client(emu: ProviderEmulator, timeout: float = 5.0) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=emu.openai_base_url, timeout=timeout, verify=False)


async def test_http_fault_sends_its_status_headers_and_provider_error_body() -> None:
    fault = Fault.http(
        429, retry_after=2, retry_after_ms=2000, should_retry=True, message="slow down"
    )
    async with ProviderEmulator(["x"], faults=[fault]) as emu, client(emu) as http:
        response = await http.post("/chat/completions", json=CHAT)
    assert response.status_code == 429
    assert [response.headers[h] for h in ("retry-after", "retry-after-ms", "x-should-retry")] == [
        "2",
        "2000",
        "true",
    ]
    assert response.json()["error"]["message"] == "slow down"


async def test_gemini_fault_carries_retry_info_in_its_body() -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    async with ProviderEmulator(["x"], faults=[Fault.http(429, retry_delay="7s")]) as emu:
        async with httpx.AsyncClient(base_url=emu.base_url, verify=False) as http:
            response = await http.post("/v1/models/g:generateContent", json=body)
    error = response.json()["error"]
    assert (error["code"], error["status"]) == (429, "RESOURCE_EXHAUSTED")
    assert error["details"] == [
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}
    ]


async def test_custom_body_replaces_the_provider_error_shape() -> None:
    async with ProviderEmulator(
        ["x"], faults=[Fault.http(502, body="<html>bad gateway</html>")]
    ) as emu:
        async with client(emu) as http:
            response = await http.post("/chat/completions", json=CHAT)
    assert (response.status_code, response.text) == (502, "<html>bad gateway</html>")


async def test_reset_drops_the_connection_before_any_header() -> None:
    async with ProviderEmulator(["x"], faults=[Fault.reset()]) as emu, client(emu) as http:
        with pytest.raises((httpx.ReadError, httpx.RemoteProtocolError)):
            await http.post("/chat/completions", json=CHAT)
        assert emu.attempts("openai") == 1


async def test_delay_outlasts_a_short_client_timeout() -> None:
    async with ProviderEmulator(["x"], faults=[Fault.delay(30)]) as emu, client(emu, 0.1) as http:
        with pytest.raises(httpx.ReadTimeout):
            await http.post("/chat/completions", json=CHAT)


async def sse_events(emu: ProviderEmulator) -> tuple[list[str], Exception | None]:
    events: list[str] = []
    async with (
        client(emu) as http,
        http.stream("POST", "/chat/completions", json=STREAM) as response,
    ):
        try:
            async for line in response.aiter_lines():
                if line.startswith("data: "):
                    events.append(line[6:])
        except httpx.HTTPError as error:
            return events, error
    return events, None


@pytest.mark.parametrize("after", [0, 1, 2])
async def test_stream_break_hangs_up_after_n_content_chunks(after: int) -> None:
    answer = Reply.streamed("a", "b", "c")
    async with ProviderEmulator([answer], faults=[Fault.stream_break(after)]) as emu:
        events, error = await sse_events(emu)
    texts = [json.loads(e)["choices"][0]["delta"]["content"] for e in events]
    assert texts == ["a", "b", "c"][:after]
    assert isinstance(error, httpx.RemoteProtocolError)


async def test_unbroken_stream_ends_with_done() -> None:
    async with ProviderEmulator([Reply.streamed("a", "b")]) as emu:
        events, error = await sse_events(emu)
    assert (events[-1], error) == ("[DONE]", None)


async def test_malformed_answer_is_not_json() -> None:
    async with ProviderEmulator(["x"], faults=[Fault.malformed()]) as emu, client(emu) as http:
        response = await http.post("/chat/completions", json=CHAT)
    assert response.status_code == 200
    with pytest.raises(json.JSONDecodeError):
        json.loads(response.text)


async def test_faults_hit_the_given_request_numbers_only() -> None:
    faults = [Fault.http(503, on=[2, 4])]
    async with ProviderEmulator(["x"] * 3, faults=faults) as emu, client(emu) as http:
        statuses = [(await http.post("/chat/completions", json=CHAT)).status_code for _ in range(5)]
    assert statuses == [200, 503, 200, 503, 200]


async def test_probability_faults_repeat_exactly_with_the_same_seed() -> None:
    async def pattern(seed: int) -> list[int]:
        fault = Fault.http(503, probability=0.5)
        async with ProviderEmulator(responder=lambda r: "ok", faults=[fault], seed=seed) as emu:
            async with client(emu) as http:
                return [
                    (await http.post("/chat/completions", json=CHAT)).status_code for _ in range(12)
                ]

    first, again = await pattern(7), await pattern(7)
    assert first == again and {200, 503} == set(first)


async def test_faults_can_target_one_provider_or_only_streams() -> None:
    faults = [Fault.http(500, provider="anthropic"), Fault.http(502, stream=True)]
    async with (
        ProviderEmulator(responder=lambda r: "ok", faults=faults) as emu,
        client(emu) as http,
    ):
        plain = await http.post("/chat/completions", json=CHAT)
        streamed = await http.post("/chat/completions", json=STREAM)
    assert (plain.status_code, streamed.status_code) == (200, 502)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("429@1,retry_after=2", Fault.http(429, retry_after=2.0, on=1)),
        ("503@2+4", Fault.http(503, on=[2, 4])),
        ("503%0.25", Fault.http(503, probability=0.25)),
        ("401", Fault.http(401)),
        (
            "429@1,retry_delay=3s,provider=gemini",
            Fault.http(429, retry_delay="3s", on=1, provider="gemini"),
        ),
        ("reset@3", Fault.reset(on=3)),
        ("delay@1,seconds=5", Fault.delay(5, on=1)),
        ("break@1,after=1,stream=true", Fault.stream_break(1, on=1, stream=True)),
        ("malformed@4", Fault.malformed(on=4)),
    ],
)
def test_fault_text_form_parses_to_the_same_fault(spec: str, expected: Fault) -> None:
    assert parse_fault(spec) == expected


@pytest.mark.parametrize(
    ("spec", "named"),
    [("teapot@1", "teapot"), ("503@x", "503@x"), ("503,colour=red", "colour"), ("200", "400-599")],
)
def test_bad_fault_text_names_what_is_wrong(spec: str, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        parse_fault(spec)


def test_fault_arguments_are_validated() -> None:
    with pytest.raises(ValueError, match="probability"):
        Fault.http(503, probability=1.5)
    with pytest.raises(ValueError, match="request numbers"):
        Fault.reset(on=0)


async def test_faults_given_in_their_text_form_are_injected() -> None:
    faults = ["429@1,retry_after=1", "503@2"]
    async with ProviderEmulator(["x"], faults=faults) as emu, client(emu) as http:
        responses = [await http.post("/chat/completions", json=CHAT) for _ in range(3)]
    assert [r.status_code for r in responses] == [429, 503, 200]
    assert float(responses[0].headers["retry-after"]) == 1.0
    assert emu.faults.faults == [Fault.http(429, retry_after=1.0, on=1), Fault.http(503, on=2)]


@pytest.mark.parametrize(
    ("faults", "named"),
    [
        (["teapot@1"], "teapot"),
        ("429@1", r"faults=\['429@1'\]"),
        ([{"status": 429}], "a Fault or its text form"),
    ],
)
def test_bad_faults_are_refused_when_the_emulator_is_made(faults: Any, named: str) -> None:
    with pytest.raises(ConfigurationError, match=named):
        ProviderEmulator(["x"], faults=faults)
