"""The three adapters against the emulator: conversion, streaming, usage, finishes.

Each test runs for Gemini, OpenAI and Anthropic through the official SDK
over HTTP, and where it matters in both non-streamed and streamed mode.
"""

from __future__ import annotations

import pytest

from steadyflow.models import BaseLlm, LlmRequest, LlmResponse
from steadyflow.testing.emulator import Reply, ToolCall, Usage
from steadyflow.types import (
    Content,
    FunctionDeclaration,
    GenerateContentConfig,
    Part,
)
from tests.models.providers import PROVIDERS, Emulate, MakeLlm

LOOKUP = FunctionDeclaration(
    name="lookup_order",
    description="Look up an order by number.",
    parameters={
        "type": "object",
        "properties": {"order_id": {"type": "string"}},
        "required": ["order_id"],
    },
)

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.parametrize("provider", PROVIDERS),
]
streams = pytest.mark.parametrize("stream", [False, True], ids=["none", "sse"])


def ask(text: str = "Where is order 812?", **config: object) -> LlmRequest:
    return LlmRequest(
        contents=[Content.from_text(text)],
        config=GenerateContentConfig(tools=[LOOKUP], **config),  # type: ignore[arg-type]
    )


async def collect(llm: BaseLlm, request: LlmRequest, stream: bool) -> list[LlmResponse]:
    return [r async for r in llm.generate_content_async(request, stream=stream)]


@streams
async def test_text_answer_ends_with_one_complete_response(
    provider: str, stream: bool, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["Order 812 shipped yesterday."])
    responses = await collect(make_llm(provider, emu), ask(), stream)
    complete = [r for r in responses if not r.partial]
    assert len(complete) == 1 and responses[-1] is complete[0]
    assert (complete[0].text, complete[0].finish_reason) == ("Order 812 shipped yesterday.", "STOP")
    assert complete[0].error_code is None


async def test_streamed_text_arrives_as_partial_deltas_then_the_whole_text(
    provider: str, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate([Reply.streamed("Order ", "812 ", "shipped.")])
    responses = await collect(make_llm(provider, emu), ask(), stream=True)
    assert [r.text for r in responses if r.partial] == ["Order ", "812 ", "shipped."]
    assert [r.text for r in responses if not r.partial] == ["Order 812 shipped."]


@streams
async def test_function_call_comes_back_with_id_name_and_args(
    provider: str, stream: bool, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate([ToolCall("lookup_order", {"order_id": "812"}, id="call_a1")])
    responses = await collect(make_llm(provider, emu), ask(), stream)
    assert not any(r.partial for r in responses)
    (call,) = [p.function_call for p in responses[-1].content.parts if p.function_call]
    assert (call.id, call.name, call.args) == ("call_a1", "lookup_order", {"order_id": "812"})


@streams
async def test_parallel_calls_keep_their_order_and_distinct_ids(
    provider: str, stream: bool, emulate: Emulate, make_llm: MakeLlm
) -> None:
    calls = [ToolCall("lookup_order", {"order_id": n}) for n in ("812", "813", "900")]
    emu = await emulate([calls])
    responses = await collect(make_llm(provider, emu), ask(), stream)
    got = [p.function_call for p in responses[-1].content.parts if p.function_call]
    assert [c.args["order_id"] for c in got] == ["812", "813", "900"]
    assert len({c.id for c in got}) == 3 and all(c.id for c in got)


@streams
async def test_usage_is_mapped_to_input_output_and_total_tokens(
    provider: str, stream: bool, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate([Reply(text="ok", usage=Usage(input_tokens=120, output_tokens=7))])
    responses = await collect(make_llm(provider, emu), ask(), stream)
    usage = responses[-1].usage_metadata
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (120, 7, 127)
    assert all(r.usage_metadata is None for r in responses if r.partial)


@streams
async def test_length_limit_keeps_the_text_and_reports_max_tokens(
    provider: str, stream: bool, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate([Reply(text="Order 812 is", finish="length")])
    responses = await collect(make_llm(provider, emu), ask(), stream)
    final = responses[-1]
    assert (final.text, final.finish_reason, final.error_code) == (
        "Order 812 is",
        "MAX_TOKENS",
        None,
    )


@streams
async def test_safety_stop_without_content_sets_an_error_code(
    provider: str, stream: bool, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate([Reply(finish="safety")])
    responses = await collect(make_llm(provider, emu), ask(), stream)
    final = responses[-1]
    assert (final.content, final.finish_reason, final.error_code) == (None, "SAFETY", "SAFETY")
    assert final.error_message


async def test_system_instruction_and_tools_reach_the_provider(
    provider: str, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["ok"])
    await collect(make_llm(provider, emu), ask(system_instruction="You are terse."), False)
    seen = emu.requests[-1]
    assert seen.system == "You are terse."
    assert [(t.name, t.description, t.parameters) for t in seen.tools] == [
        ("lookup_order", LOOKUP.description, LOOKUP.parameters)
    ]


async def test_call_and_result_history_reaches_the_provider_paired_by_id(
    provider: str, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["Order 812 shipped."])
    history = [
        Content.from_text("Where is order 812?"),
        Content.from_parts(
            Part.from_text("Let me check."),
            Part.from_function_call("lookup_order", {"order_id": "812"}, id="call_9"),
            role="model",
        ),
        Content.from_parts(
            Part.from_function_response("lookup_order", {"status": "shipped"}, id="call_9")
        ),
    ]
    request = LlmRequest(contents=history, config=GenerateContentConfig(tools=[LOOKUP]))
    await collect(make_llm(provider, emu), request, False)
    turns = emu.requests[-1].turns
    assert [t.role for t in turns] == ["user", "model", "user"]
    assert turns[1].text == "Let me check."
    assert [(c.id, c.name, c.args) for c in turns[1].calls] == [
        ("call_9", "lookup_order", {"order_id": "812"})
    ]
    assert [(r.id, r.response) for r in turns[2].results] == [("call_9", {"status": "shipped"})]


async def test_model_name_and_stream_flag_reach_the_provider(
    provider: str, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["a", "b"])
    llm = make_llm(provider, emu)
    await collect(llm, ask(), False)
    await collect(llm, ask(), True)
    assert [(r.model, r.stream) for r in emu.requests] == [(llm.model, False), (llm.model, True)]


async def test_output_limit_and_stop_sequences_reach_the_provider(
    provider: str, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["ok"])
    # The Responses API has no stop sequences (test_openai_responses: a clear error instead).
    stops = None if provider == "openai-responses" else ["END"]
    request = ask(max_output_tokens=77, stop_sequences=stops)
    await collect(make_llm(provider, emu), request, False)
    body = emu.requests[-1].body
    settings = body.get("generationConfig", body)
    assert 77 in (
        settings.get("maxOutputTokens"),
        settings.get("max_tokens"),
        settings.get("max_completion_tokens"),
        settings.get("max_output_tokens"),
    )
    if stops is not None:
        assert stops in (
            settings.get("stopSequences"),
            settings.get("stop_sequences"),
            settings.get("stop"),
        )
