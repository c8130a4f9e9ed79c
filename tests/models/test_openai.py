"""What only the OpenAI adapter does: token-limit naming, usage in streams, headers, Groq."""

from __future__ import annotations

import httpx2
import openai
import pytest

from steadyflow.errors import ConfigurationError, ModelHTTPError
from steadyflow.models import LlmRequest
from steadyflow.models._openai_wire import assemble, build_params
from steadyflow.models.openai import Groq, OpenAI
from steadyflow.retry._config import DEFAULT_RETRYABLE_STATUS_CODES as CODES
from steadyflow.testing.emulator import Fault
from steadyflow.types import (
    Content,
    FunctionCall,
    FunctionResponse,
    GenerateContentConfig,
    Part,
    ThinkingConfig,
)
from tests.models.providers import SECRET, Emulate, MakeLlm

module_loop = pytest.mark.asyncio(loop_scope="module")


def ask(**config: object) -> LlmRequest:
    return LlmRequest(
        contents=[Content.from_text("hi")],
        config=GenerateContentConfig(**config),  # type: ignore[arg-type]
    )


async def run(llm: OpenAI, request: LlmRequest, stream: bool = False) -> None:
    async for _ in llm.generate_content_async(request, stream=stream):
        pass


def test_openai_prefix_is_dropped_from_the_model_name() -> None:
    assert OpenAI("openai/llama3.2").model == "llama3.2"


@module_loop
async def test_compatible_server_gets_max_tokens(emulate: Emulate, make_llm: MakeLlm) -> None:
    emu = await emulate(["ok"])
    await run(make_llm("openai", emu), ask(max_output_tokens=50))
    assert emu.requests[-1].body["max_tokens"] == 50


def test_reasoning_model_gets_max_completion_tokens() -> None:
    params = build_params(ask(max_output_tokens=50), "o3-mini", "max_completion_tokens")
    assert params["max_completion_tokens"] == 50 and "max_tokens" not in params
    assert OpenAI("o3-mini", base_url="http://localhost:1/v1")._max_tokens_name() == (
        "max_completion_tokens"
    )
    assert OpenAI("gpt-4o")._max_tokens_name() == "max_completion_tokens"


@module_loop
async def test_streaming_asks_for_the_usage_chunk(emulate: Emulate, make_llm: MakeLlm) -> None:
    emu = await emulate(["ok"])
    await run(make_llm("openai", emu), ask(), stream=True)
    assert emu.requests[-1].body["stream_options"] == {"include_usage": True}


@module_loop
async def test_response_schema_becomes_a_json_schema_response_format(
    emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["{}"])
    schema = {"type": "object", "properties": {"status": {"type": "string"}}}
    await run(make_llm("openai", emu), ask(response_schema=schema))
    assert emu.requests[-1].body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "response", "schema": schema},
    }


@module_loop
async def test_inline_image_is_sent_as_a_data_url(emulate: Emulate, make_llm: MakeLlm) -> None:
    emu = await emulate(["a cat"])
    image = Content.from_parts(
        Part.from_text("what is it?"), Part.from_bytes(b"\x89PNG", "image/png")
    )
    await run(make_llm("openai", emu), LlmRequest(contents=[image]))
    (message,) = emu.requests[-1].body["messages"]
    assert message["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64,iVBORw=="},
    }


def test_inline_audio_is_refused_with_a_clear_error() -> None:
    audio = Content.from_parts(Part.from_bytes(b"RIFF", "audio/wav"))
    with pytest.raises(ConfigurationError, match="audio/wav"):
        build_params(LlmRequest(contents=[audio]), "gpt-4o", "max_tokens")


@module_loop
@pytest.mark.parametrize(
    ("status", "should_retry", "expected"),
    [(503, False, False), (400, True, True), (429, None, True)],
)
async def test_x_should_retry_header_overrides_the_status(
    status: int, should_retry: bool | None, expected: bool, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["x"], faults=[Fault.http(status, should_retry=should_retry)])
    llm = make_llm("openai", emu)
    with pytest.raises(ModelHTTPError) as caught:
        await run(llm, ask())
    links = [caught.value, caught.value.__cause__]
    assert [llm.is_exception_retryable(e, CODES) for e in links] == [expected, expected]


def test_arguments_that_are_not_json_give_a_malformed_call_error_code() -> None:
    response = assemble("", [("c1", "lookup_order", '{"order_id": "81')], "length", None, None)
    assert response.error_code == "MALFORMED_FUNCTION_CALL"
    assert response.finish_reason == "MAX_TOKENS"


def test_sdk_status_error_on_its_own_is_classified_by_status() -> None:
    request = httpx2.Request("POST", "http://x/v1/chat/completions")
    error = openai.InternalServerError(
        "boom", response=httpx2.Response(502, request=request), body=None
    )
    assert OpenAI("gpt-4o").is_exception_retryable(error, CODES)


@module_loop
async def test_groq_reads_its_own_key_and_base_url(
    emulate: Emulate, monkeypatch: pytest.MonkeyPatch
) -> None:
    emu = await emulate(["ok"], api_key=SECRET)
    monkeypatch.setenv("GROQ_API_KEY", SECRET)
    monkeypatch.setenv("GROQ_BASE_URL", emu.openai_base_url)
    llm = Groq("groq/llama-3.3-70b-versatile")
    try:
        await run(llm, ask())
    finally:
        await llm.aclose()
    assert [r.model for r in emu.requests] == ["llama-3.3-70b-versatile"]


def test_a_refusal_without_an_answer_gives_a_refusal_error_code() -> None:
    response = assemble("", [], "stop", None, None, refusal="I can't help with that.")
    assert (response.error_code, response.error_message) == ("REFUSAL", "I can't help with that.")
    assert response.content is None


@module_loop
async def test_groq_sends_its_openai_prefixed_models_by_their_full_name(
    emulate: Emulate,
) -> None:
    emu = await emulate(["ok", "ok"], api_key=SECRET)
    for name in ("openai/gpt-oss-120b", "groq/openai/gpt-oss-120b"):
        llm = Groq(name, api_key=SECRET, base_url=emu.openai_base_url)
        try:
            await run(llm, ask())
        finally:
            await llm.aclose()
    assert [r.model for r in emu.requests] == ["openai/gpt-oss-120b"] * 2


@pytest.mark.parametrize(
    ("thinking", "effort"),
    [
        (ThinkingConfig(effort="high"), "high"),
        (ThinkingConfig(effort="minimal", budget_tokens=30000), "minimal"),
        (ThinkingConfig(budget_tokens=0), "minimal"),
        (ThinkingConfig(budget_tokens=1024), "low"),
        (ThinkingConfig(budget_tokens=8000), "medium"),
        (ThinkingConfig(budget_tokens=32000), "high"),
        (ThinkingConfig(include_thoughts=True), "medium"),
    ],
)
def test_thinking_becomes_reasoning_effort(thinking: ThinkingConfig, effort: str) -> None:
    params = build_params(ask(thinking=thinking), "o4-mini", "max_completion_tokens")
    assert params["reasoning_effort"] == effort


def test_no_thinking_sends_no_reasoning_effort() -> None:
    assert "reasoning_effort" not in build_params(ask(), "gpt-4o", "max_completion_tokens")


def test_empty_text_parts_are_not_sent_back() -> None:
    call = FunctionCall(id="call_1", name="lookup_order", args={"order_id": "812"})
    history = [
        Content.from_text("Where is 812?"),
        Content(role="model", parts=[Part(function_call=call), Part(text="")]),
        Content(
            role="user",
            parts=[
                Part(function_response=FunctionResponse(id="call_1", name="lookup_order")),
                Part(text=""),
            ],
        ),
    ]
    messages = build_params(LlmRequest(contents=history), "gpt-4o", "max_tokens")["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool"]
    assert messages[1]["content"] is None


@module_loop
@pytest.mark.parametrize("stream", [False, True], ids=["none", "sse"])
async def test_the_emulated_answer_carries_id_tier_and_zero_token_details(
    stream: bool, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["ok"])
    responses = [r async for r in make_llm("openai", emu).generate_content_async(ask(), stream)]
    final = responses[-1]
    assert final.response_id is not None and final.response_id.startswith("chatcmpl-")
    assert final.service_tier == "default"
    assert final.usage_metadata is not None
    assert (final.usage_metadata.cached_input_tokens, final.usage_metadata.reasoning_tokens) == (
        0,
        0,
    )
