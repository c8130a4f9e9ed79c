"""What only the Anthropic adapter does: message shaping, max_tokens, sampling, 529."""

from __future__ import annotations

import anthropic
import httpx2
import pytest

from steadyflow.errors import ModelHTTPError
from steadyflow.models import BaseLlm, LlmRequest
from steadyflow.models._anthropic_answer import Answer, response_from
from steadyflow.models._anthropic_wire import DEFAULT_MAX_TOKENS, build_params
from steadyflow.models.anthropic import Anthropic
from steadyflow.retry._config import DEFAULT_RETRYABLE_STATUS_CODES as CODES
from steadyflow.testing.emulator import Fault
from steadyflow.types import Content, GenerateContentConfig, Part
from tests.models.providers import Emulate, MakeLlm

module_loop = pytest.mark.asyncio(loop_scope="module")


async def run(llm: BaseLlm, request: LlmRequest, stream: bool = False) -> None:
    async for _ in llm.generate_content_async(request, stream=stream):
        pass


def test_max_tokens_is_always_sent_with_a_default() -> None:
    params = build_params(LlmRequest(contents=[Content.from_text("hi")]), "claude-x")
    assert params["max_tokens"] == DEFAULT_MAX_TOKENS


def test_consecutive_turns_of_one_role_are_merged_into_one_message() -> None:
    contents = [Content.from_text("first"), Content.from_text("second")]
    messages = build_params(LlmRequest(contents=contents), "claude-x")["messages"]
    assert messages == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "first"}, {"type": "text", "text": "second"}],
        }
    ]


def test_tool_results_lead_the_user_message_that_carries_them() -> None:
    turn = Content.from_parts(
        Part.from_text("also, hurry"),
        Part.from_function_response("lookup_order", {"status": "shipped"}, id="toolu_1"),
    )
    (message,) = build_params(LlmRequest(contents=[turn]), "claude-x")["messages"]
    assert [block["type"] for block in message["content"]] == ["tool_result", "text"]
    assert message["content"][0]["tool_use_id"] == "toolu_1"


def test_empty_text_and_thought_parts_are_not_sent() -> None:
    turn = Content.from_parts(Part(text=""), Part(text="musing", thought=True), role="model")
    assert build_params(LlmRequest(contents=[turn]), "claude-x")["messages"] == []


def test_sampling_settings_are_sent_in_the_body_and_seed_is_not() -> None:
    config = GenerateContentConfig(temperature=0.3, top_p=0.9, top_k=5, seed=1)
    params = build_params(LlmRequest(contents=[], config=config), "claude-x")
    assert params["extra_body"] == {"temperature": 0.3, "top_p": 0.9, "top_k": 5}
    assert "seed" not in params and "seed" not in params["extra_body"]


@module_loop
async def test_sampling_settings_reach_the_server(emulate: Emulate, make_llm: MakeLlm) -> None:
    emu = await emulate(["ok"])
    config = GenerateContentConfig(temperature=0.2, top_p=0.8, top_k=7)
    await run(
        make_llm("anthropic", emu), LlmRequest(contents=[Content.from_text("hi")], config=config)
    )
    body = emu.requests[0].body
    assert (body["temperature"], body["top_p"], body["top_k"]) == (0.2, 0.8, 7)


def test_response_schema_becomes_structured_output() -> None:
    schema = {"type": "object"}
    config = GenerateContentConfig(response_schema=schema)
    params = build_params(LlmRequest(contents=[], config=config), "claude-x")
    assert params["output_config"] == {"format": {"type": "json_schema", "schema": schema}}


def test_an_empty_text_block_after_a_tool_call_is_not_a_part() -> None:
    blocks = [
        {"type": "tool_use", "id": "toolu_1", "name": "lookup_order", "input": {}},
        {"type": "text", "text": ""},
    ]
    response = response_from(Answer(blocks=blocks, usage={}), "anthropic", "claude-x")
    assert [p.function_call is not None for p in response.content.parts] == [True]


@module_loop
@pytest.mark.parametrize("stream", [False, True], ids=["none", "sse"])
async def test_529_overloaded_is_retryable(
    stream: bool, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["x"], faults=[Fault.http(529)])
    llm = make_llm("anthropic", emu)
    with pytest.raises(ModelHTTPError) as caught:
        await run(llm, LlmRequest(contents=[Content.from_text("hi")]), stream)
    assert caught.value.status_code == 529
    assert caught.value.body["error"]["type"] == "overloaded_error"
    assert llm.is_exception_retryable(caught.value, CODES)
    assert emu.attempts("anthropic") == 1


@module_loop
@pytest.mark.parametrize(
    ("status", "should_retry", "expected"), [(529, False, False), (400, True, True)]
)
async def test_x_should_retry_header_overrides_the_status(
    status: int, should_retry: bool, expected: bool, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["x"], faults=[Fault.http(status, should_retry=should_retry)])
    llm = make_llm("anthropic", emu)
    with pytest.raises(ModelHTTPError) as caught:
        await run(llm, LlmRequest(contents=[Content.from_text("hi")]))
    links = [caught.value, caught.value.__cause__]
    assert [llm.is_exception_retryable(e, CODES) for e in links] == [expected, expected]


@pytest.mark.parametrize(
    ("error_type", "expected"),
    [("overloaded_error", True), ("api_error", True), ("invalid_request_error", False)],
)
def test_error_event_inside_a_200_stream_is_classified_by_its_type(
    error_type: str, expected: bool
) -> None:
    response = httpx2.Response(200, request=httpx2.Request("POST", "http://x/v1/messages"))
    body = {"type": "error", "error": {"type": error_type, "message": "m"}}
    error = anthropic.APIStatusError("m", response=response, body=body)
    assert Anthropic("claude-x").is_exception_retryable(error, CODES) is expected
