"""The Gemini adapter against answers no honest server gives (a scripted raw HTTP server).

Cut streams and bodies, error payloads under HTTP 200, a malformed RetryInfo,
a redirect to another origin, a caller that stops reading early, and usage
in Gemini's own payload shapes, streamed and not.
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
from steadyflow.models.gemini import Gemini
from steadyflow.testing import fake_clock
from steadyflow.testing.harness import run_turn
from steadyflow.types import Content, UsageMetadata
from tests.models.providers import SECRET
from tests.support.hostile import HostileServer, Reply, sse

pytestmark = pytest.mark.asyncio(loop_scope="module")
STREAMS = pytest.mark.parametrize("stream", [False, True], ids=["none", "sse"])
SSE = {"content-type": "text/event-stream"}
MODEL = "gemini-2.5-flash"
CODES = frozenset({429, 500, 503})

# A grounded answer with thinking, in the shapes Gemini sends: usage counts
# toolUsePromptTokenCount apart from promptTokenCount, thoughts apart from
# candidates; totalTokenCount is the sum of all four.
USAGE = {
    "promptTokenCount": 12,
    "candidatesTokenCount": 6,
    "totalTokenCount": 139,
    "cachedContentTokenCount": 4,
    "toolUsePromptTokenCount": 97,
    "thoughtsTokenCount": 24,
    "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 12}],
}
GROUNDING = {
    "webSearchQueries": ["capital of France"],
    "groundingChunks": [{"web": {"uri": "https://example.org/paris", "title": "example.org"}}],
    "groundingSupports": [
        {"segment": {"endIndex": 21, "text": "Paris is the capital."}, "groundingChunkIndices": [0]}
    ],
}
TAIL = {"modelVersion": MODEL, "responseId": "resp-7Hq2"}


def candidate(parts: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0, **fields}]}


WHOLE = {
    **candidate(
        [{"text": "Paris is the capital."}], finishReason="STOP", groundingMetadata=GROUNDING
    ),
    "usageMetadata": USAGE,
    **TAIL,
}
CHUNKS = [
    {
        **candidate([{"text": "Paris is"}]),
        "usageMetadata": {"promptTokenCount": 12, "totalTokenCount": 12},
        **TAIL,
    },
    {**candidate([{"text": " the capital."}]), **TAIL},
    {
        **candidate([{"text": ""}], finishReason="STOP", groundingMetadata=GROUNDING),
        "usageMetadata": USAGE,
        **TAIL,
    },
]


def whole(body: Any, status: int = 200, **options: Any) -> Reply:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return Reply(status=status, body=[data], framing="length", **options)


def streamed(*chunks: Any, **options: Any) -> Reply:
    return Reply(body=sse(*(json.dumps(c) for c in chunks)), headers=SSE, **options)


@pytest_asyncio.fixture(loop_scope="module")
async def server() -> AsyncIterator[HostileServer]:
    async with HostileServer() as running:
        yield running


def adapter(server: HostileServer, **options: Any) -> Gemini:
    return Gemini(MODEL, api_key=SECRET, base_url=server.url, **options)


def ask() -> LlmRequest:
    return LlmRequest(contents=[Content.from_text("What is the capital of France?")])


async def call(llm: Gemini, stream: bool) -> tuple[list[LlmResponse], BaseException | None]:
    seen: list[LlmResponse] = []
    try:
        async for response in llm.generate_content_async(ask(), stream=stream):
            seen.append(response)
    except ModelError as exc:
        return seen, exc
    finally:
        await llm.aclose()
    return seen, None


async def test_usage_ids_and_grounding_are_the_same_streamed_and_not(
    server: HostileServer,
) -> None:
    server.script(whole(WHOLE), streamed(*CHUNKS))
    (plain,), _ = await call(adapter(server), stream=False)
    *partials, final = (await call(adapter(server), stream=True))[0]
    expected = UsageMetadata(
        input_tokens=109,
        output_tokens=30,
        total_tokens=139,
        cached_input_tokens=4,
        reasoning_tokens=24,
        tool_use_prompt_tokens=97,
    )
    assert plain.usage_metadata == final.usage_metadata == expected
    assert plain.response_id == final.response_id == "resp-7Hq2"
    assert plain.grounding_metadata == final.grounding_metadata == GROUNDING
    assert plain.content == final.content  # one text part, no empty one
    assert [p.text for p in partials] == ["Paris is", " the capital."]


CUT = json.dumps(WHOLE).encode()[:60]


@pytest.mark.parametrize(
    ("stream", "cut"),
    [
        (True, streamed(*CHUNKS[:2])),
        (True, Reply(body=[*sse(json.dumps(CHUNKS[0])), b"data: " + CUT], framing="close")),
        (False, Reply(body=[CUT], framing="close")),
    ],
    ids=["sse-ends-before-finish", "sse-cut-inside-an-event", "none-cut-inside-the-body"],
)
async def test_an_answer_without_its_finish_is_a_connection_error(
    stream: bool, cut: Reply, server: HostileServer
) -> None:
    server.script(cut)
    _, error = await call(adapter(server), stream)
    assert isinstance(error, ModelConnectionError)
    assert adapter(server).is_exception_retryable(error, CODES)


@pytest.mark.parametrize("mode", [StreamingMode.NONE, StreamingMode.SSE], ids=["none", "sse"])
async def test_a_cut_answer_before_any_output_is_retried(
    mode: StreamingMode, server: HostileServer
) -> None:
    no_text = {**candidate([{"text": ""}]), **TAIL}
    cut = (
        streamed(no_text) if mode is StreamingMode.SSE else Reply(body=[b'{"cand'], framing="close")
    )
    good = streamed(*CHUNKS) if mode is StreamingMode.SSE else whole(WHOLE)
    server.script(cut, good)
    llm = adapter(server)
    retries = RetryConfig(max_attempts=2, jitter_ratio=0.0)
    with fake_clock():
        result = await run_turn(
            LlmAgent(name="geo", model=llm),
            "Capital?",
            run_config=RunConfig(streaming_mode=mode, retry_config=retries),
        )
    await llm.aclose()
    assert result.error is None
    assert result.final_text == "Paris is the capital."
    assert len(server.requests) == 2


@STREAMS
async def test_an_error_payload_under_http_200_is_the_error_it_names(
    stream: bool, server: HostileServer
) -> None:
    payload = {
        "error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}
    }
    server.script(streamed(payload) if stream else whole(payload))
    _, error = await call(adapter(server), stream)
    assert isinstance(error, ModelHTTPError)
    assert (error.status_code, error.provider) == (503, "gemini")
    assert error.body["error"]["message"] == "The model is overloaded."
    assert adapter(server).is_exception_retryable(error, CODES)


async def test_an_error_payload_without_a_status_is_a_response_error(
    server: HostileServer,
) -> None:
    server.script(whole({"error": {"message": "something broke"}}))
    _, error = await call(adapter(server), stream=False)
    assert isinstance(error, ModelResponseError)
    assert error.provider == "gemini" and "something broke" in str(error)
    assert error.body == {"error": {"message": "something broke"}}


@STREAMS
@pytest.mark.parametrize("delay", [{"seconds": "abc"}, "abc", {"seconds": 1, "nanos": "x"}])
async def test_a_malformed_retry_info_is_no_hint_and_the_error_keeps_its_body(
    stream: bool, delay: object, server: HostileServer
) -> None:
    detail = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}
    body = {"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED"}}
    body["error"]["details"] = [detail]  # type: ignore[index]
    server.script(whole(body, status=429))
    llm = adapter(server)
    _, error = await call(llm, stream)
    assert isinstance(error, ModelHTTPError)
    assert (error.status_code, error.retry_after) == (429, None)
    assert error.body["error"]["details"] == [detail]
    assert error.__cause__ is not None and llm.retry_after(error.__cause__) is None


@STREAMS
async def test_a_redirect_is_not_followed_so_the_key_stays_home(stream: bool) -> None:
    async with HostileServer() as home, HostileServer() as elsewhere:
        home.script(
            Reply(status=307, headers={"location": f"{elsewhere.url}/steal"}, framing="length")
        )
        _, error = await call(adapter(home), stream)
        assert isinstance(error, ModelHTTPError) and error.status_code == 307
        assert home.requests[0].headers["x-goog-api-key"] == SECRET
        assert elsewhere.requests == []
        assert not adapter(home).is_exception_retryable(error, CODES)


async def test_closing_a_stream_early_closes_its_connection_at_once(server: HostileServer) -> None:
    server.script(streamed(CHUNKS[0], ending="hang"))
    llm = adapter(server)
    answer = llm.generate_content_async(ask(), stream=True)
    first = await anext(answer)
    assert first.partial and first.text == "Paris is"
    loop = asyncio.get_running_loop()
    closed_from = loop.time()
    await answer.aclose()  # type: ignore[attr-defined]
    await asyncio.wait_for(server.closed_by_client.wait(), 5)
    await llm.aclose()
    assert server.closed_at[-1] - closed_from < 0.1


@pytest.mark.parametrize("count", [-100000, 10**30], ids=["negative", "absurd"])
async def test_an_invalid_usage_report_is_no_usage(server: HostileServer, count: int) -> None:
    usage = {"promptTokenCount": count, "candidatesTokenCount": 5, "totalTokenCount": 5}
    server.script(whole({**WHOLE, "usageMetadata": usage}))
    (response,), error = await call(adapter(server), stream=False)
    assert error is None and response.usage_metadata is None
