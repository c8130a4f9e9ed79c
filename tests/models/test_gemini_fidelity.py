"""What Gemini requires back and reports: thought signatures, thinking, usage, ids, headers.

The emulator runs ``gemini-3-*`` models as Gemini 3 (it signs calls and
refuses a request without its signature), so a two-step tool turn through the
official SDK fails unless every signature goes back unchanged, on its part.
"""

from __future__ import annotations

import base64

import pytest

from steadyflow import LlmAgent, RunConfig, StreamingMode
from steadyflow.models import BaseLlm, LlmRequest
from steadyflow.models._gemini_wire import SKIP_SIGNATURE, build_config, contents_from
from steadyflow.models.fallback import FallbackLlm
from steadyflow.models.gemini import Gemini
from steadyflow.testing.emulator import Fault, ToolCall
from steadyflow.testing.emulator._gemini import THOUGHT, THOUGHT_TOKENS
from steadyflow.testing.harness import run_turn
from steadyflow.types import (
    Content,
    GenerateContentConfig,
    Part,
    ProviderData,
    ThinkingConfig,
)
from tests.models.providers import SECRET, Emulate, MakeLlm

module_loop = pytest.mark.asyncio(loop_scope="module")
MODES = pytest.mark.parametrize(
    "mode", [StreamingMode.NONE, StreamingMode.SSE], ids=["none", "sse"]
)
GEMINI_3 = "gemini-3-test-flash"


def lookup_order(order_id: str) -> dict[str, str]:
    """Look up an order by its number."""
    return {"order_id": order_id, "status": "shipped"}


def agent(llm: BaseLlm, config: GenerateContentConfig | None = None) -> LlmAgent:
    return LlmAgent(
        name="support",
        model=llm,
        instruction="Use lookup_order.",
        tools=[lookup_order],
        generate_content_config=config,
    )


def wire(signature: bytes | None) -> str | None:
    return None if signature is None else base64.urlsafe_b64encode(signature).decode()


@module_loop
@MODES
async def test_a_two_step_tool_turn_on_gemini_3_sends_each_signature_back(
    mode: StreamingMode, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate([ToolCall("lookup_order", {"order_id": "812"}), "Order 812 shipped."])
    llm = make_llm("gemini", emu)
    assert llm.model == GEMINI_3
    result = await run_turn(agent(llm), "Where is 812?", run_config=RunConfig(streaming_mode=mode))
    assert result.error is None
    assert result.final_text == "Order 812 shipped."
    call_event = next(e for e in result.events if e.get_function_calls())
    (part,) = call_event.content.parts
    assert part.thought_signature is not None
    assert part.provider_data == ProviderData(provider="gemini", model=GEMINI_3)
    sent = emu.requests[1].body["contents"][1]["parts"]
    assert len(sent) == 1  # no empty text part echoed after the call
    assert sent[0]["thoughtSignature"] == wire(part.thought_signature)
    assert sent[0]["thoughtSignature"] != wire(SKIP_SIGNATURE)
    stored = await result.stored_session()
    assert [
        p.thought_signature
        for e in stored.events
        if e.content
        for p in e.content.parts
        if p.function_call
    ]
    assert emu.attempts("gemini") == 2


@module_loop
@MODES
async def test_parallel_calls_keep_the_one_signature_on_the_first_call(
    mode: StreamingMode, emulate: Emulate, make_llm: MakeLlm
) -> None:
    calls = [ToolCall("lookup_order", {"order_id": n}) for n in ("812", "813")]
    emu = await emulate([calls, "Both shipped."])
    result = await run_turn(
        agent(make_llm("gemini", emu)), "812 and 813?", run_config=RunConfig(streaming_mode=mode)
    )
    assert result.error is None
    call_event = next(e for e in result.events if e.get_function_calls())
    signed = [p.thought_signature is not None for p in call_event.content.parts]
    assert signed == [True, False]
    sent = emu.requests[1].body["contents"][1]["parts"]
    assert ["thoughtSignature" in p for p in sent] == [True, False]


@module_loop
@MODES
async def test_a_signed_text_answer_keeps_its_signature_streamed_or_not(
    mode: StreamingMode, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["Order 812 shipped on Monday.", "ok"])
    llm = make_llm("gemini", emu)
    first = await run_turn(agent(llm), "812?", run_config=RunConfig(streaming_mode=mode))
    (answer,) = first.complete_events
    (part,) = answer.content.parts
    assert (part.text, part.thought_signature is not None) == ("Order 812 shipped on Monday.", True)
    second = await run_turn(agent(llm), "thanks", runner=first.runner, session_id=first.session_id)
    assert second.error is None  # the emulator verified the text signature it got back
    assert emu.requests[1].body["contents"][1]["parts"][0]["thoughtSignature"] == wire(
        part.thought_signature
    )


def test_a_signature_goes_back_only_to_the_model_that_issued_it() -> None:
    mine = ProviderData(provider="gemini", model=GEMINI_3)
    other = ProviderData(provider="gemini", model="gemini-3-pro")
    turn = Content.from_parts(
        Part(text="Checking.", thought_signature=b"text-sig", provider_data=other),
        Part.from_function_call("lookup_order", {"order_id": "1"}).model_copy(
            update={"thought_signature": b"call-sig", "provider_data": mine}
        ),
        role="model",
    )
    (sent_mine,) = contents_from([turn], GEMINI_3)
    assert [p.thought_signature for p in sent_mine.parts or []] == [None, b"call-sig"]
    (sent_other,) = contents_from([turn], "gemini-3-pro")
    # the foreign call's signature is dropped; Gemini 3 gets Google's placeholder instead
    assert [p.thought_signature for p in sent_other.parts or []] == [b"text-sig", SKIP_SIGNATURE]
    (sent_old,) = contents_from([turn], "gemini-2.5-flash")
    assert [p.thought_signature for p in sent_old.parts or []] == [None, None]


def test_an_unsigned_empty_text_part_is_never_sent() -> None:
    turn = Content.from_parts(
        Part.from_function_call("lookup_order", {"order_id": "1"}), Part(text=""), role="model"
    )
    (content,) = contents_from([turn], "gemini-2.5-flash")
    assert [p.function_call is not None for p in content.parts or []] == [True]


def ask_thinking(thinking: ThinkingConfig, model: str) -> object:
    request = LlmRequest(
        contents=[Content.from_text("hi")], config=GenerateContentConfig(thinking=thinking)
    )
    config = build_config(request, None, model, {}).thinking_config
    assert config is not None
    return (config.thinking_budget, enum(config.thinking_level), config.include_thoughts)


def enum(value: object) -> str | None:
    return None if value is None else str(getattr(value, "value", value))


@pytest.mark.parametrize(
    ("thinking", "model", "expected"),
    [
        (ThinkingConfig(budget_tokens=2048), "gemini-2.5-flash", (2048, None, None)),
        (ThinkingConfig(effort="low"), "gemini-2.5-pro", (1024, None, None)),
        (ThinkingConfig(effort="high", budget_tokens=99), "gemini-2.5-pro", (99, None, None)),
        (ThinkingConfig(effort="minimal"), "gemini-3-flash", (None, "MINIMAL", None)),
        (ThinkingConfig(effort="high", budget_tokens=99), "gemini-3-pro", (None, "HIGH", None)),
        (ThinkingConfig(budget_tokens=512), "gemini-3-pro", (512, None, None)),
        (ThinkingConfig(include_thoughts=True), "gemini-3-pro", (None, None, True)),
    ],
)
def test_thinking_maps_to_gemini_thinking_config(
    thinking: ThinkingConfig, model: str, expected: object
) -> None:
    assert ask_thinking(thinking, model) == expected


@module_loop
async def test_thinking_config_reaches_the_api(emulate: Emulate, make_llm: MakeLlm) -> None:
    emu = await emulate(["ok"])
    config = GenerateContentConfig(thinking=ThinkingConfig(effort="medium", include_thoughts=True))
    request = LlmRequest(contents=[Content.from_text("hi")], config=config)
    async for _ in make_llm("gemini", emu).generate_content_async(request):
        pass
    sent = emu.requests[-1].body["generationConfig"]["thinkingConfig"]
    # the SDK writes these field names in snake_case (proto JSON reads both)
    assert {k.replace("_", "").lower(): v for k, v in sent.items()} == {
        "includethoughts": True,
        "thinkinglevel": "MEDIUM",
    }


@module_loop
@pytest.mark.parametrize("stream", [False, True], ids=["none", "sse"])
async def test_extra_headers_go_with_every_request_and_stay_out_of_the_repr(
    stream: bool, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["a"])
    llm = make_llm("gemini", emu, headers={"x-gateway-token": SECRET})
    request = LlmRequest(contents=[Content.from_text("hi")])
    async for _ in llm.generate_content_async(request, stream=stream):
        pass
    assert emu.requests[-1].headers["x-gateway-token"] == SECRET
    assert SECRET not in repr(llm)


@module_loop
@MODES
async def test_after_a_fallback_the_next_gemini_3_model_gets_no_foreign_signature(
    mode: StreamingMode, emulate: Emulate
) -> None:
    # Step 1 is answered by model a (a signed call); step 2's request to a
    # fails with 503, so the chain asks model b, which refuses a's signature.
    emu = await emulate(
        [ToolCall("lookup_order", {"order_id": "812"}), "Order 812 shipped."],
        faults=[Fault.http(503, on=2)],
    )
    first, second = (
        Gemini(name, api_key=SECRET, base_url=emu.base_url)
        for name in ("gemini-3-test-a", "gemini-3-test-b")
    )
    try:
        result = await run_turn(
            agent(FallbackLlm([first, second])),
            "Where is 812?",
            run_config=RunConfig(streaming_mode=mode),
        )
    finally:
        await first.aclose()
        await second.aclose()
    assert result.error is None
    assert result.final_text == "Order 812 shipped."
    assert [r.model for r in emu.requests] == ["gemini-3-test-a"] * 2 + ["gemini-3-test-b"]
    (call_part,) = emu.requests[2].body["contents"][1]["parts"]
    assert call_part["thoughtSignature"] == wire(SKIP_SIGNATURE)


@module_loop
@MODES
async def test_shown_thoughts_come_back_as_thought_parts_and_are_never_sent_back(
    mode: StreamingMode, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate([ToolCall("lookup_order", {"order_id": "812"}), "Order 812 shipped."])
    thinking = GenerateContentConfig(thinking=ThinkingConfig(include_thoughts=True))
    support = agent(make_llm("gemini", emu), thinking)
    result = await run_turn(support, "Where is 812?", run_config=RunConfig(streaming_mode=mode))
    assert result.error is None
    call_event = next(e for e in result.events if e.get_function_calls())
    assert [(p.thought, p.function_call is not None) for p in call_event.content.parts] == [
        (True, False),
        (None, True),
    ]
    assert call_event.usage_metadata is not None
    assert call_event.usage_metadata.reasoning_tokens == THOUGHT_TOKENS
    sent = emu.requests[1].body["contents"][1]["parts"]
    assert [("functionCall" in p, "thought" in p) for p in sent] == [(True, False)]
    assert all(not p.partial or THOUGHT not in p.text for p in result.events)


@module_loop
async def test_usage_of_one_answer_is_the_same_streamed_and_not(
    emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["Order 812 shipped.", "Order 812 shipped."])
    config = GenerateContentConfig(thinking=ThinkingConfig(include_thoughts=True))
    request = LlmRequest(contents=[Content.from_text("812?")], config=config)
    llm = make_llm("gemini", emu)
    usages = []
    for stream in (False, True):
        async for response in llm.generate_content_async(request, stream=stream):
            if not response.partial:
                usages.append(response.usage_metadata)
    assert usages[0] == usages[1]
    assert usages[0] is not None and usages[0].reasoning_tokens == THOUGHT_TOKENS
    assert usages[0].total_tokens == usages[0].input_tokens + usages[0].output_tokens
