"""What only the Gemini adapter does: RetryInfo hints, blocked prompts, thoughts, SDK switches."""

from __future__ import annotations

import pytest
from google.genai import types as gt

from steadyflow.errors import ModelHTTPError
from steadyflow.models import BaseLlm, LlmRequest
from steadyflow.models._gemini_answer import complete
from steadyflow.models._gemini_wire import build_config, contents_from, retry_delay
from steadyflow.models.gemini import Gemini
from steadyflow.testing.emulator import Fault
from steadyflow.types import Content, GenerateContentConfig, Part
from tests.models.providers import SECRET, Emulate, MakeLlm

module_loop = pytest.mark.asyncio(loop_scope="module")


async def run(llm: BaseLlm, request: LlmRequest, stream: bool = False) -> None:
    async for _ in llm.generate_content_async(request, stream=stream):
        pass


def ask(**config: object) -> LlmRequest:
    return LlmRequest(
        contents=[Content.from_text("hi")],
        config=GenerateContentConfig(**config),  # type: ignore[arg-type]
    )


@module_loop
@pytest.mark.parametrize("stream", [False, True], ids=["none", "sse"])
async def test_retry_info_in_the_error_body_is_the_wait_hint(
    stream: bool, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["x"], faults=[Fault.http(429, retry_delay="3.5s")])
    llm = make_llm("gemini", emu)
    with pytest.raises(ModelHTTPError) as caught:
        await run(llm, ask(), stream)
    assert caught.value.retry_after == 3.5
    assert llm.retry_after(caught.value.__cause__) == 3.5  # the SDK error on its own


@pytest.mark.parametrize(
    ("delay", "seconds"), [("2s", 2.0), ("0.250s", 0.25), ({"seconds": 1, "nanos": 5e8}, 1.5)]
)
def test_retry_delay_formats_are_read(delay: object, seconds: float) -> None:
    body = {
        "error": {
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}]
        }
    }
    assert retry_delay(body) == seconds


def test_body_without_retry_info_gives_no_hint() -> None:
    assert retry_delay({"error": {"code": 429, "details": [{"@type": "x.ErrorInfo"}]}}) is None


def test_every_hidden_sdk_retry_and_automation_is_switched_off() -> None:
    config = build_config(ask(), 2.5, "gemini-test", {})
    assert config.http_options is not None and config.http_options.retry_options is not None
    assert config.http_options.retry_options.attempts == 1
    assert config.http_options.timeout == 2500
    assert config.automatic_continuation is False
    assert config.automatic_function_calling is not None
    assert config.automatic_function_calling.disable is True


@module_loop
async def test_response_schema_is_sent_as_a_json_schema(
    emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["{}"])
    schema = {"type": "object", "properties": {"status": {"type": "string"}}}
    await run(
        make_llm("gemini", emu), ask(response_schema=schema, response_mime_type="application/json")
    )
    generation = emu.requests[-1].body["generationConfig"]
    assert generation["responseMimeType"] == "application/json"
    assert generation["responseJsonSchema"] == schema


def test_thought_parts_are_not_sent_back_to_the_model() -> None:
    turn = Content.from_parts(Part(text="musing", thought=True), Part.from_text("ok"), role="model")
    (content,) = contents_from([turn], "gemini-test")
    assert [p.text for p in content.parts or []] == ["ok"]


def test_thoughts_in_the_answer_become_thought_parts() -> None:
    parts = [gt.Part(text="musing", thought=True), gt.Part(text="Order 812 shipped.")]
    answer = gt.GenerateContentResponse(
        candidates=[
            gt.Candidate(content=gt.Content(role="model", parts=parts), finish_reason="STOP")
        ]
    )
    response = complete([answer], "gemini-test", stream=False)
    assert [(p.text, p.thought) for p in response.content.parts] == [
        ("musing", True),
        ("Order 812 shipped.", None),
    ]
    assert response.text == "Order 812 shipped."


def test_blocked_prompt_gives_an_error_code_and_no_content() -> None:
    blocked = gt.GenerateContentResponse(
        prompt_feedback=gt.GenerateContentResponsePromptFeedback(block_reason="PROHIBITED_CONTENT")
    )
    response = complete([blocked], "gemini-test", stream=False)
    assert (response.content, response.error_code) == (None, "PROHIBITED_CONTENT")


@module_loop
async def test_gemini_api_key_is_used_when_google_api_key_is_unset(
    emulate: Emulate, monkeypatch: pytest.MonkeyPatch
) -> None:
    emu = await emulate(["ok"], api_key=SECRET)
    monkeypatch.setenv("GEMINI_API_KEY", SECRET)
    monkeypatch.setenv("GEMINI_BASE_URL", emu.base_url)
    llm = Gemini("gemini-test")
    try:
        await run(llm, ask())
    finally:
        await llm.aclose()
    assert emu.attempts("gemini") == 1


@module_loop
async def test_labels_reach_the_api_without_being_refused(
    emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["ok"])
    await run(make_llm("gemini", emu), ask(labels={"team": "support"}))
    assert emu.requests[-1].body["labels"] == {"team": "support"}
