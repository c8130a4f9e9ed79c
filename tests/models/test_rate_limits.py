"""Rate-limit headers and quota errors as the adapters hand them to the retry loop."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest

from steadyflow.errors import ModelHTTPError, QuotaExhaustedError
from steadyflow.models import LlmRequest
from steadyflow.models._headers import headers_reported_to
from steadyflow.models._rate_limits import Limit, parse_duration, quota_reset, read_rate_limits
from steadyflow.models.anthropic import Anthropic
from steadyflow.models.openai import OpenAI
from steadyflow.testing.emulator import Fault
from steadyflow.types import Content
from tests.models.anthropic_payloads import MODEL, json_reply, message, search_events, sse_reply
from tests.models.providers import Emulate, MakeLlm
from tests.support.hostile import HostileServer, Reply

REQUEST = LlmRequest(contents=[Content.from_text("hi")])
OPENAI_LIMITS = {
    "x-ratelimit-limit-requests": "500",
    "x-ratelimit-remaining-requests": "499",
    "x-ratelimit-reset-requests": "120ms",
    "x-ratelimit-limit-tokens": "30000",
    "x-ratelimit-remaining-tokens": "29950",
    "x-ratelimit-reset-tokens": "6m0s",
}
ANTHROPIC_LIMITS = {
    "anthropic-ratelimit-requests-limit": "50",
    "anthropic-ratelimit-requests-remaining": "49",
    "anthropic-ratelimit-requests-reset": "2026-12-01T12:00:01Z",
    "anthropic-ratelimit-output-tokens-limit": "8000",
    "anthropic-ratelimit-output-tokens-remaining": "7990",
    "anthropic-ratelimit-output-tokens-reset": "2026-12-01T12:00:00.500000+00:00",
}
NOON = 1796126400.0  # 2026-12-01T12:00:00Z
COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-test",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "hello"},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
}
GEMINI_DAILY = {
    "error": {
        "code": 429,
        "message": "You exceeded your current quota, please check your plan and billing details.",
        "status": "RESOURCE_EXHAUSTED",
        "details": [
            {
                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                "violations": [
                    {
                        "quotaMetric": "generativelanguage.googleapis.com/"
                        "generate_requests_per_model_per_day",
                        "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                    }
                ],
            },
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "20s"},
        ],
    }
}
OPENAI_QUOTA = {
    "error": {
        "message": "You exceeded your current quota, please check your plan and billing details.",
        "type": "insufficient_quota",
        "param": None,
        "code": "insufficient_quota",
    }
}


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("1s", 1.0), ("6m0s", 360.0), ("20ms", 0.02), ("1h2m3.5s", 3723.5), ("0.5", 0.5)],
)
def test_openai_reset_durations_are_read(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "soon", "5x", "1s5"])
def test_a_reset_that_is_no_duration_is_none(text: str) -> None:
    assert parse_duration(text) is None


def test_openai_headers_give_requests_and_tokens() -> None:
    assert read_rate_limits(OPENAI_LIMITS) == {
        "requests": Limit(500.0, 499.0, pytest.approx(0.12)),
        "tokens": Limit(30000.0, 29950.0, 360.0),
    }


def test_anthropic_headers_give_resets_from_their_rfc3339_times() -> None:
    assert read_rate_limits(ANTHROPIC_LIMITS, now=NOON) == {
        "requests": Limit(50.0, 49.0, pytest.approx(1.0)),
        "output_tokens": Limit(8000.0, 7990.0, pytest.approx(0.5)),
    }


def test_no_rate_limit_headers_give_no_limits() -> None:
    assert read_rate_limits({"content-type": "application/json"}) == {}


def test_openai_insufficient_quota_is_a_quota_with_no_named_reset() -> None:
    assert quota_reset(429, OPENAI_QUOTA["error"], {}, None) == (True, None)


def test_a_gemini_per_day_quota_resets_at_midnight_pacific() -> None:
    # 12:00 UTC is 04:00 in Los Angeles (PST): 20 hours to midnight, whatever RetryInfo says.
    assert quota_reset(429, GEMINI_DAILY, {}, 20.0, now=NOON) == (True, pytest.approx(20 * 3600))


def test_a_per_minute_gemini_limit_is_not_a_quota() -> None:
    body = json.loads(json.dumps(GEMINI_DAILY).replace("PerDay", "PerMinute"))
    assert quota_reset(429, body, {}, 20.0, now=NOON) == (False, None)


def test_a_429_whose_reset_is_hours_away_is_a_quota() -> None:
    headers = {
        "x-ratelimit-limit-requests": "200",
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": "13h2m",
    }
    assert quota_reset(429, {}, headers, None) == (True, pytest.approx(13 * 3600 + 120))
    assert quota_reset(429, {}, {}, 7200.0) == (True, 7200.0)
    assert quota_reset(429, {}, {}, 30.0) == (False, None)
    assert quota_reset(503, OPENAI_QUOTA, {}, None) == (False, None)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize(("provider", "body"), [("openai", OPENAI_QUOTA), ("gemini", GEMINI_DAILY)])
async def test_an_adapter_raises_a_quota_429_as_quota_exhausted(
    provider: str, body: dict[str, object], emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["never"], faults=[Fault.http(429, body=body)])
    llm = make_llm(provider, emu)
    with pytest.raises(QuotaExhaustedError, match="a quota, not a rate limit") as caught:
        async for _ in llm.generate_content_async(REQUEST):
            pass
    assert caught.value.status_code == 429


@pytest.mark.asyncio(loop_scope="module")
async def test_a_rate_limit_429_stays_a_plain_http_error(
    emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["never"], faults=[Fault.http(429, retry_after=2, headers=OPENAI_LIMITS)])
    with pytest.raises(ModelHTTPError) as caught:
        async for _ in make_llm("openai", emu).generate_content_async(REQUEST):
            pass
    assert not isinstance(caught.value, QuotaExhaustedError)
    assert caught.value.headers["x-ratelimit-remaining-tokens"] == "29950"


async def heard(llm: OpenAI | Anthropic, stream: bool) -> list[Mapping[str, str]]:
    reports: list[Mapping[str, str]] = []
    responses = llm.generate_content_async(REQUEST, stream=stream)
    while True:
        with headers_reported_to(reports.append):
            try:
                await anext(responses)
            except StopAsyncIteration:
                break
    await llm.aclose()
    return reports


@pytest.mark.parametrize("stream", [False, True], ids=["none", "sse"])
async def test_the_openai_adapter_reports_an_answers_headers(
    hostile: HostileServer, stream: bool
) -> None:
    if stream:
        chunk = {**COMPLETION, "object": "chat.completion.chunk"}
        chunk["choices"] = [{"index": 0, "delta": {"content": "hello"}, "finish_reason": "stop"}]
        body = [f"data: {json.dumps(chunk)}\n\n".encode(), b"data: [DONE]\n\n"]
        hostile.script(
            Reply(headers={"content-type": "text/event-stream", **OPENAI_LIMITS}, body=body)
        )
    else:
        data = json.dumps(COMPLETION).encode()
        hostile.script(Reply(headers=OPENAI_LIMITS, body=[data], framing="length"))
    reports = await heard(OpenAI("gpt-test", api_key="k", base_url=hostile.url), stream)
    assert [r["x-ratelimit-reset-tokens"] for r in reports] == ["6m0s"]


@pytest.mark.parametrize("stream", [False, True], ids=["none", "sse"])
async def test_the_anthropic_adapter_reports_an_answers_headers(
    hostile: HostileServer, stream: bool
) -> None:
    if stream:
        streamed = sse_reply(search_events())
        reply = Reply(headers={**streamed.headers, **ANTHROPIC_LIMITS}, body=streamed.body)
    else:
        answer = message([{"type": "text", "text": "hi"}], {"input_tokens": 1, "output_tokens": 1})
        plain = json_reply(answer)
        reply = Reply(headers=ANTHROPIC_LIMITS, body=plain.body, framing="length")
    hostile.script(reply)
    reports = await heard(Anthropic(MODEL, api_key="k", base_url=hostile.url), stream)
    assert [r["anthropic-ratelimit-requests-remaining"] for r in reports] == ["49"]
