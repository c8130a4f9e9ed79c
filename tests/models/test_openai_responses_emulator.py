"""The emulator's Responses dialect through the raw ``openai`` SDK: as strict as the real API.

Each refusal is the real API's 400 body (``message``, ``type``, ``param``,
``code``); reasoning items carry the emulator's own encrypted content, which
must come back unchanged and to the model that issued it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import openai
import pytest
import pytest_asyncio

from steadyflow.testing.emulator import ProviderEmulator, Reply, ToolCall, Usage

pytestmark = pytest.mark.asyncio(loop_scope="module")

TOOL = {
    "type": "function",
    "name": "lookup_order",
    "description": "Look up an order.",
    "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}},
    "strict": False,
}
REASONING = {
    "model": "o4-mini",
    "store": False,
    "include": ["reasoning.encrypted_content"],
    "reasoning": {"effort": "low", "summary": "auto"},
    "tools": [TOOL],
}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def emu() -> AsyncIterator[ProviderEmulator]:
    async with ProviderEmulator() as emulator:
        yield emulator


@pytest_asyncio.fixture(loop_scope="module")
async def client(emu: ProviderEmulator) -> AsyncIterator[openai.AsyncOpenAI]:
    emu.reset([ToolCall("lookup_order", {"order_id": "812"}, id="call_1"), "Order 812 shipped."])
    sdk = openai.AsyncOpenAI(api_key="k", base_url=emu.openai_base_url, max_retries=0)
    yield sdk
    await sdk.close()


async def refused(client: openai.AsyncOpenAI, **params: Any) -> dict[str, Any]:
    with pytest.raises(openai.BadRequestError) as caught:
        await client.responses.create(**params)
    assert caught.value.status_code == 400
    body = caught.value.body
    assert isinstance(body, dict) and body["type"] == "invalid_request_error"
    return body


def as_input(output: list[Any]) -> list[dict[str, Any]]:
    """Output items as the next request's input items (what a client sends back)."""
    items = []
    for item in output:
        data = item.model_dump(exclude_none=True)
        data.pop("status", None)
        items.append(data)
    return items


async def first_step(client: openai.AsyncOpenAI) -> list[dict[str, Any]]:
    response = await client.responses.create(input="Where is order 812?", **REASONING)
    return [{"role": "user", "content": "Where is order 812?"}, *as_input(response.output)]


def tool_output(call_id: str = "call_1") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": '{"s": "shipped"}'}


async def test_reasoning_model_answers_with_a_reasoning_item_then_its_call(
    client: openai.AsyncOpenAI,
) -> None:
    response = await client.responses.create(input="Where is order 812?", **REASONING)
    reasoning, call = response.output
    assert reasoning.type == "reasoning" and reasoning.encrypted_content
    assert [s.text for s in reasoning.summary] and call.type == "function_call"
    assert (call.call_id, call.name, json.loads(call.arguments)) == (
        "call_1",
        "lookup_order",
        {"order_id": "812"},
    )
    usage = response.usage
    assert usage is not None and 0 < usage.output_tokens_details.reasoning_tokens
    assert usage.output_tokens_details.reasoning_tokens <= usage.output_tokens


async def test_reasoning_and_call_sent_back_unchanged_are_accepted(
    client: openai.AsyncOpenAI, emu: ProviderEmulator
) -> None:
    history = await first_step(client)
    response = await client.responses.create(input=[*history, tool_output()], **REASONING)
    assert response.output_text == "Order 812 shipped."
    (result,) = emu.requests[-1].turns[-1].results
    assert (result.id, result.name, result.response) == ("call_1", "lookup_order", {"s": "shipped"})


async def test_tampered_encrypted_content_is_refused(client: openai.AsyncOpenAI) -> None:
    history = await first_step(client)
    history[1]["encrypted_content"] = history[1]["encrypted_content"][:-2] + "00"
    body = await refused(client, input=[*history, tool_output()], **REASONING)
    assert body["param"] == "input[1].encrypted_content"
    assert "could not be verified" in body["message"]


async def test_encrypted_content_is_refused_by_another_model(client: openai.AsyncOpenAI) -> None:
    history = await first_step(client)
    body = await refused(client, input=[*history, tool_output()], **{**REASONING, "model": "o3"})
    assert body["code"] == "invalid_encrypted_content"


async def test_unstored_reasoning_item_without_its_content_is_not_found(
    client: openai.AsyncOpenAI,
) -> None:
    history = await first_step(client)
    del history[1]["encrypted_content"]
    body = await refused(client, input=[*history, tool_output()], **REASONING)
    assert "not found" in body["message"]


async def test_reasoning_item_without_its_following_item_is_refused(
    client: openai.AsyncOpenAI,
) -> None:
    history = await first_step(client)
    for cut in (history[:2], [*history[:2], {"role": "user", "content": "and?"}]):
        body = await refused(client, input=cut, **REASONING)
        assert "without its required following item" in body["message"]


async def test_a_call_sent_back_with_its_id_needs_its_reasoning_item(
    client: openai.AsyncOpenAI, emu: ProviderEmulator
) -> None:
    user, reasoning, call = await first_step(client)
    body = await refused(client, input=[user, call, tool_output()], **REASONING)
    assert f"without its required 'reasoning' item: '{reasoning['id']}'" in body["message"]
    without_id = {key: value for key, value in call.items() if key != "id"}
    emu.add_script("Order 812 shipped.")
    answered = await client.responses.create(input=[user, without_id, tool_output()], **REASONING)
    assert answered.output_text == "Order 812 shipped."


@pytest.mark.parametrize("call_id", ["call_unknown", None], ids=["unknown-id", "no-call"])
async def test_function_call_output_without_its_call_is_refused(
    client: openai.AsyncOpenAI, call_id: str | None
) -> None:
    history = [{"role": "user", "content": "hi"}]
    if call_id is not None:
        call = {"type": "function_call", "call_id": "call_1", "name": "x", "arguments": "{}"}
        history.append(call)
    body = await refused(
        client, model="gpt-4.1", input=[*history, tool_output(call_id or "call_1")]
    )
    assert body["message"].startswith("No tool call found for function call output")


async def test_unknown_parameter_is_refused_with_openais_body(client: openai.AsyncOpenAI) -> None:
    body = await refused(client, model="gpt-4.1", input="hi", extra_body={"stop": ["END"]})
    assert (body["message"], body["param"], body["code"]) == (
        "Unknown parameter: 'stop'.",
        "stop",
        "unknown_parameter",
    )


async def test_unknown_field_of_an_input_item_is_refused(client: openai.AsyncOpenAI) -> None:
    item = {"role": "user", "content": "hi", "name": "bob"}
    body = await refused(client, model="gpt-4.1", input=[item])
    assert (body["param"], body["code"]) == ("input[0].name", "unknown_parameter")


async def test_strict_tool_without_a_closed_schema_is_refused(client: openai.AsyncOpenAI) -> None:
    tool = {key: value for key, value in TOOL.items() if key != "strict"}  # strict by default
    body = await refused(client, model="gpt-4.1", input="hi", tools=[tool])
    assert body["code"] == "invalid_function_parameters"


async def test_stream_events_are_numbered_in_order_and_end_completed(
    client: openai.AsyncOpenAI, emu: ProviderEmulator
) -> None:
    emu.reset([Reply.streamed("Order ", "812.", usage=Usage(10, 4))])
    events = [e async for e in await client.responses.create(stream=True, input="hi", **REASONING)]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    kinds = [e.type for e in events]
    assert kinds[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    assert kinds[-1] == "response.completed"
    assert [e.delta for e in events if e.type == "response.output_text.delta"] == ["Order ", "812."]
    assert events[-1].response.output_text == "Order 812."
    assert events[-1].response.usage.total_tokens == 14
