"""Extended thinking against the strict emulator, through the official SDK.

With thinking on, the assistant turn before a tool result must carry its
thinking blocks, signatures intact, or the API answers 400: a two-step tool
turn proves they survive the round trip, streamed and not, and the emulator's
own checks prove it refuses what the real API refuses.
"""

from __future__ import annotations

import anthropic
import pytest

from steadyflow import LlmAgent, RunConfig, StreamingMode
from steadyflow.models import BaseLlm, LlmRequest
from steadyflow.models.anthropic import Anthropic
from steadyflow.testing.emulator import ProviderEmulator, ToolCall
from steadyflow.testing.emulator._anthropic_checks import REDACTION_TRIGGER
from steadyflow.testing.harness import TurnResult, run_turn
from steadyflow.types import Content, GenerateContentConfig, ThinkingConfig
from tests.models.providers import MODELS, SECRET, Emulate, MakeLlm
from tests.models.test_provider_flows import lookup_order

pytestmark = pytest.mark.asyncio(loop_scope="module")
MODES = pytest.mark.parametrize(
    "mode", [StreamingMode.NONE, StreamingMode.SSE], ids=["none", "sse"]
)
THINKING = GenerateContentConfig(thinking=ThinkingConfig(budget_tokens=2048))


async def thinking_turn(llm: BaseLlm, text: str, mode: StreamingMode) -> TurnResult:
    agent = LlmAgent(
        name="support",
        model=llm,
        instruction="Answer questions about orders. Use lookup_order.",
        tools=[lookup_order],
        generate_content_config=THINKING,
    )
    return await run_turn(agent, text, run_config=RunConfig(streaming_mode=mode))


def blocks_of(emu: ProviderEmulator, request: int, message: int) -> list[dict[str, object]]:
    content = emu.requests[request].body["messages"][message]["content"]
    assert isinstance(content, list)
    return content


@MODES
async def test_a_two_step_tool_turn_sends_the_signed_thinking_back(
    mode: StreamingMode, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate()
    result = await thinking_turn(make_llm("anthropic", emu), "Where is order 812?", mode)
    assert result.error is None
    call_event = next(e for e in result.events if e.get_function_calls() and not e.partial)
    thought, call = call_event.content.parts
    assert thought.thought and thought.thought_signature and call.function_call
    assert "812" in result.events[-1].text
    assert emu.attempts("anthropic") == 2
    sent_back = blocks_of(emu, 1, 1)
    assert [b["type"] for b in sent_back] == ["thinking", "tool_use"]
    assert sent_back[0]["signature"] == thought.thought_signature.decode()
    assert sent_back[0]["thinking"] == thought.text


@MODES
async def test_a_turn_of_several_tool_steps_keeps_the_opening_thinking(
    mode: StreamingMode, emulate: Emulate, make_llm: MakeLlm
) -> None:
    script = [
        ToolCall("lookup_order", {"order_id": "812"}),
        ToolCall("lookup_order", {"order_id": "913"}),
        "Both shipped.",
    ]
    emu = await emulate(script)
    result = await thinking_turn(make_llm("anthropic", emu), "Where are 812 and 913?", mode)
    assert result.error is None
    assert result.events[-1].text == "Both shipped."
    assert emu.attempts("anthropic") == 3
    kinds = [[b["type"] for b in blocks_of(emu, 2, n)] for n in (1, 3)]
    assert kinds == [["thinking", "tool_use"], ["tool_use"]]  # Claude thinks once per turn


@MODES
async def test_redacted_thinking_goes_back_as_it_came(
    mode: StreamingMode, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate()
    text = f"Where is order 812? {REDACTION_TRIGGER}"
    result = await thinking_turn(make_llm("anthropic", emu), text, mode)
    assert result.error is None
    call_event = next(e for e in result.events if e.get_function_calls() and not e.partial)
    redacted = call_event.content.parts[1]
    assert redacted.thought and redacted.provider_data is not None
    sent_back = blocks_of(emu, 1, 1)
    assert [b["type"] for b in sent_back] == ["thinking", "redacted_thinking", "tool_use"]
    assert sent_back[1] == redacted.provider_data.data


def tool_turn(*assistant: dict[str, object]) -> list[dict[str, object]]:
    call = {"type": "tool_use", "id": "toolu_1", "name": "lookup_order", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "{}"}
    return [
        {"role": "user", "content": "Where is order 812?"},
        {"role": "assistant", "content": [*assistant, call]},
        {"role": "user", "content": [result]},
    ]


async def raw_call(emu: ProviderEmulator, **body: object) -> anthropic.BadRequestError:
    client = anthropic.AsyncAnthropic(api_key=SECRET, base_url=emu.base_url, max_retries=0)
    params = {"model": MODELS["anthropic"], "max_tokens": 4096, **body}
    try:
        with pytest.raises(anthropic.BadRequestError) as caught:
            await client.messages.create(**params)  # type: ignore[call-overload]
    finally:
        await client.close()
    assert caught.value.body["error"]["type"] == "invalid_request_error"  # type: ignore[index]
    return caught.value


THINK_ON = {"type": "enabled", "budget_tokens": 1024}


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"messages": tool_turn(), "thinking": THINK_ON}, "Expected `thinking`"),
        (
            {
                "messages": tool_turn({"type": "thinking", "thinking": "x", "signature": "forged"}),
                "thinking": THINK_ON,
            },
            "Invalid `signature`",
        ),
        (
            {"messages": [*tool_turn()[:2], {"role": "user", "content": "hi"}]},
            "without `tool_result`",
        ),
        (
            {"messages": [tool_turn()[0], {"role": "user", "content": tool_turn()[2]["content"]}]},
            "unexpected `tool_use_id`",
        ),
        ({"messages": [{"role": "user", "content": [{"type": "text", "text": ""}]}]}, "non-empty"),
        (
            {"messages": [{"role": "user", "content": "hi"}], "extra_body": {"seed": 1}},
            "seed: Extra inputs",
        ),
        (
            {
                "messages": [{"role": "user", "content": "hi"}],
                "thinking": THINK_ON,
                "extra_body": {"top_k": 5},
            },
            "top_k",
        ),
        (
            {
                "messages": [{"role": "user", "content": [{"type": "text", "text": "x", "x": 1}]}],
            },
            "text.x: Extra inputs",
        ),
        (
            {
                "messages": [{"role": "user", "content": "hi"}],
                "tools": [{"name": "t", "input_schema": {}, "parameters": {}}],
            },
            "custom.parameters: Extra inputs",
        ),
    ],
    ids=[
        "no-thinking",
        "forged",
        "unanswered",
        "unknown-id",
        "empty-text",
        "unknown-field",
        "top-k",
        "unknown-block-field",
        "unknown-tool-field",
    ],
)
async def test_the_emulator_refuses_what_the_api_refuses(
    body: dict[str, object], says: str, emulate: Emulate
) -> None:
    emu = await emulate(["never sent"])
    error = await raw_call(emu, **body)
    assert says in str(error.body)
    assert emu.script_remaining == 1


async def test_a_signature_from_another_model_is_refused(
    emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate()
    llm = make_llm("anthropic", emu)
    request = LlmRequest(contents=[Content.from_text("Where is order 812?")], config=THINKING)
    responses = [r async for r in llm.generate_content_async(request)]
    thought = responses[-1].content.parts[0]
    signed = {
        "type": "thinking",
        "thinking": thought.text,
        "signature": thought.thought_signature.decode(),
    }
    error = await raw_call(
        emu, model="claude-test-other", messages=tool_turn(signed), thinking=THINK_ON
    )
    assert "Invalid `signature`" in str(error.body)


async def test_a_tool_loop_another_model_opened_goes_without_thinking(
    emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate()
    first = await thinking_turn(
        make_llm("anthropic", emu), "Where is order 812?", StreamingMode.NONE
    )
    session = await first.stored_session()
    history = [e.content for e in session.events if e.content is not None][:3]
    other = Anthropic("claude-test-other", api_key=SECRET, base_url=emu.base_url)
    try:
        request = LlmRequest(contents=history, config=THINKING)
        responses = [r async for r in other.generate_content_async(request)]
    finally:
        await other.aclose()
    assert "812" in responses[-1].text
    body = emu.requests[2].body
    assert "thinking" not in body  # the API refuses thinking in a loop it cannot see opened
    assert [b["type"] for b in body["messages"][1]["content"]] == ["tool_use"]


@pytest.mark.parametrize("include", [True, False], ids=["shown", "hidden"])
async def test_thinking_streams_as_partial_thoughts_only_when_asked(
    include: bool, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["It shipped."])
    thinking = ThinkingConfig(budget_tokens=2048, include_thoughts=include)
    request = LlmRequest(
        contents=[Content.from_text("Where is order 812?")],
        config=GenerateContentConfig(thinking=thinking),
    )
    llm = make_llm("anthropic", emu)
    responses = [r async for r in llm.generate_content_async(request, stream=True)]
    *partials, final = responses
    thoughts = "".join(p.text or "" for r in partials for p in r.content.parts if p.thought)
    complete_thought = final.content.parts[0]
    assert complete_thought.thought and complete_thought.thought_signature
    assert thoughts == (complete_thought.text if include else "")
    assert "".join(r.text for r in partials) == "It shipped."


@MODES
async def test_a_new_claude_thinks_adaptively_and_gets_its_blocks_back(
    mode: StreamingMode, emulate: Emulate
) -> None:
    emu = await emulate()
    llm = Anthropic("claude-opus-4-7", api_key=SECRET, base_url=emu.base_url)
    try:
        result = await thinking_turn(llm, "Where is order 812?", mode)
    finally:
        await llm.aclose()  # an open client's socket warns when collected, failing a later test
    assert result.error is None
    first, second = (emu.requests[n].body for n in range(2))
    assert first["thinking"] == second["thinking"] == {"type": "adaptive"}
    assert first["output_config"] == {"effort": "low"}  # from budget_tokens=2048
    assert blocks_of(emu, 1, 1)[0]["type"] == "thinking"
    assert "812" in result.events[-1].text
