"""The Responses adapter: reasoning items round-tripped, usage details, errors inside a stream.

The shared provider suites (test_provider_*) run it through every fault and
mapping the other adapters pass; this module covers what only the Responses
API has, against the strict emulator and, for answers no honest server
gives, the hostile server.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from steadyflow import LlmAgent, RetryConfig, RunConfig, StreamingMode
from steadyflow.errors import ConfigurationError, ModelConnectionError, ModelError, ModelHTTPError
from steadyflow.models import LlmRegistry, LlmRequest, LlmResponse
from steadyflow.models.openai import OpenAIResponses
from steadyflow.retry._config import DEFAULT_RETRYABLE_STATUS_CODES as CODES
from steadyflow.testing import FakeClock
from steadyflow.testing.emulator import ProviderEmulator, Reply, Usage
from steadyflow.testing.harness import run_turn
from steadyflow.types import Content, GenerateContentConfig, Part, ProviderData, ThinkingConfig
from tests.models.providers import SECRET
from tests.support.hostile import HostileServer, sse
from tests.support.hostile import Reply as Raw

pytestmark = pytest.mark.asyncio(loop_scope="module")
MODES = pytest.mark.parametrize(
    "mode", [StreamingMode.NONE, StreamingMode.SSE], ids=["none", "sse"]
)
REASONER = "o4-test-mini"
THINKING = GenerateContentConfig(thinking=ThinkingConfig(effort="low", include_thoughts=True))


def lookup_order(order_id: str) -> dict[str, str]:
    """Look up an order by its number."""
    return {"order_id": order_id, "status": "shipped", "eta": "Friday"}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def emu() -> AsyncIterator[ProviderEmulator]:
    async with ProviderEmulator() as emulator:
        yield emulator


@pytest_asyncio.fixture(loop_scope="module")
async def llm(emu: ProviderEmulator) -> AsyncIterator[OpenAIResponses]:
    emu.reset()
    adapter = OpenAIResponses(REASONER, api_key=SECRET, base_url=emu.openai_base_url)
    yield adapter
    await adapter.aclose()


async def collect(llm: OpenAIResponses, request: LlmRequest, stream: bool) -> list[LlmResponse]:
    return [r async for r in llm.generate_content_async(request, stream=stream)]


def reasoning_inputs(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [item for item in body["input"] if item.get("type") == "reasoning"]


@MODES
async def test_two_step_tool_turn_sends_each_reasoning_item_back_unchanged(
    mode: StreamingMode, emu: ProviderEmulator, llm: OpenAIResponses
) -> None:
    agent = LlmAgent(
        name="support", model=llm, tools=[lookup_order], generate_content_config=THINKING
    )
    result = await run_turn(agent, "Where is order 812?", run_config=RunConfig(streaming_mode=mode))
    assert result.error is None and emu.attempts("openai-responses") == 2
    call_event, _, final = result.complete_events
    thought, call = call_event.content.parts
    assert thought.thought and thought.text and call.function_call.name == "lookup_order"
    issued = thought.provider_data
    assert (issued.provider, issued.model) == ("openai-responses", REASONER)
    first, second = (r.body for r in emu.requests)
    assert first["reasoning"] == {"effort": "low", "summary": "auto"}
    assert (first["store"], first["include"]) == (False, ["reasoning.encrypted_content"])
    (sent_back,) = reasoning_inputs(second)
    assert sent_back["id"] == issued.data["id"]
    assert sent_back["encrypted_content"] == issued.data["encrypted_content"]
    assert [s["text"] for s in sent_back["summary"]] == [thought.text]
    assert final.text == "Order 812 - status: shipped, eta: Friday."
    stored = await result.stored_session()
    assert [p.provider_data for p in stored.events[1].content.parts] == [issued, None]
    partials = [p for e in result.events if e.partial for p in e.content.parts]
    final_thought = final.content.parts[0]
    assert final_thought.thought and final_thought.provider_data.data["id"] != issued.data["id"]
    expected = [thought.text, final_thought.text] if mode is StreamingMode.SSE else []
    assert [p.text for p in partials if p.thought] == expected
    streamed_text = "".join(p.text or "" for p in partials if not p.thought)
    assert streamed_text == (final.text if mode is StreamingMode.SSE else "")


async def test_reasoning_items_go_back_only_to_the_model_that_issued_them(
    emu: ProviderEmulator, llm: OpenAIResponses
) -> None:
    first = await collect(
        llm, LlmRequest(contents=[Content.from_text("hi")], config=THINKING), False
    )
    ours = first[-1].content.parts[0]
    foreign = Part(
        thought=True, text="theirs", provider_data=ProviderData(provider="anthropic", model="c")
    )
    history = [
        Content.from_text("hi"),
        Content.from_parts(ours, foreign, Part.from_text("Hello."), role="model"),
        Content.from_text("And now?"),
    ]
    other = OpenAIResponses("o3-test", api_key=SECRET, base_url=emu.openai_base_url)
    try:
        for adapter in (llm, other):
            await collect(adapter, LlmRequest(contents=history, config=THINKING), False)
    finally:
        await other.aclose()
    to_issuer, to_other = (reasoning_inputs(r.body) for r in emu.requests[1:])
    assert [item["id"] for item in to_issuer] == [ours.provider_data.data["id"]]
    assert to_other == []


@pytest.mark.parametrize("stream", [False, True], ids=["none", "sse"])
async def test_usage_reports_cached_and_reasoning_tokens_the_same_streamed_or_not(
    stream: bool, emu: ProviderEmulator, llm: OpenAIResponses
) -> None:
    emu.reset([Reply(text="ok", usage=Usage(input_tokens=120, output_tokens=30))])
    (*_, final) = await collect(llm, LlmRequest(contents=[Content.from_text("hi")]), stream)
    usage = final.usage_metadata
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (120, 30, 150)
    assert usage.cached_input_tokens == 0
    assert usage.reasoning_tokens is not None and 0 < usage.reasoning_tokens <= 30


async def test_response_id_and_service_tier_come_back_on_the_response(
    emu: ProviderEmulator,
) -> None:
    emu.reset()
    adapter = OpenAIResponses(
        "gpt-test", api_key=SECRET, base_url=emu.openai_base_url, service_tier="flex"
    )
    try:
        (answer,) = await collect(adapter, LlmRequest(contents=[Content.from_text("hi")]), False)
    finally:
        await adapter.aclose()
    assert emu.requests[-1].body["service_tier"] == "flex"
    assert (answer.service_tier, answer.response_id[:5]) == ("flex", "resp_")


async def test_stop_sequences_are_refused_before_any_request(
    emu: ProviderEmulator, llm: OpenAIResponses
) -> None:
    config = GenerateContentConfig(stop_sequences=["END"])
    with pytest.raises(ConfigurationError, match="no stop sequences"):
        await collect(llm, LlmRequest(contents=[Content.from_text("hi")], config=config), False)
    assert emu.attempts() == 0


async def test_registry_resolves_the_openai_responses_prefix() -> None:
    resolved = LlmRegistry.resolve("openai-responses/gpt-5-mini")
    assert isinstance(resolved, OpenAIResponses) and resolved.model == "gpt-5-mini"
    assert resolved.provider == "openai-responses"


# -- what no honest server sends: the hostile server --------------------------------------------


def events(*items: tuple[str, dict[str, Any]]) -> list[bytes]:
    """Responses SSE pieces, numbered."""
    numbered = [
        (kind, {"type": kind, "sequence_number": n, **data}) for n, (kind, data) in enumerate(items)
    ]
    return sse(*((kind, json.dumps(data)) for kind, data in numbered))


RESPONSE = {"id": "resp_1", "object": "response", "model": "gpt-test", "output": []}
STARTED = ("response.created", {"response": {**RESPONSE, "status": "in_progress"}})
DELTA = (
    "response.output_text.delta",
    {"item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "Order "},
)
ERRORS = {
    "error event": ("error", {"code": "rate_limit_exceeded", "message": "slow down"}),
    "nested error event": ("error", {"error": {"type": "server_error", "message": "oops"}}),
    "response.failed": (
        "response.failed",
        {
            "response": {
                **RESPONSE,
                "status": "failed",
                "error": {"code": "server_error", "message": "x"},
            }
        },
    ),
}
STATUS = {"error event": 429, "nested error event": 500, "response.failed": 500}


@pytest_asyncio.fixture(loop_scope="module")
async def hostile() -> AsyncIterator[HostileServer]:
    # On the module's loop, unlike the conftest one (these tests share the module's loop).
    async with HostileServer() as server:
        yield server


async def attempt(server: HostileServer, stream: bool = True) -> tuple[list[LlmResponse], Any]:
    adapter = OpenAIResponses("gpt-test", api_key=SECRET, base_url=f"{server.url}/v1")
    seen: list[LlmResponse] = []
    try:
        with pytest.raises(ModelError) as caught:
            async for response in adapter.generate_content_async(
                LlmRequest(contents=[Content.from_text("hi")]), stream=stream
            ):
                seen.append(response)
    finally:
        await adapter.aclose()
    return seen, caught.value


@pytest.mark.parametrize("name", list(ERRORS))
async def test_an_error_inside_the_stream_is_classified_by_its_code(
    name: str, hostile: HostileServer
) -> None:
    hostile.script(
        Raw(headers={"content-type": "text/event-stream"}, body=events(STARTED, ERRORS[name]))
    )
    seen, error = await attempt(hostile)
    assert seen == [] and isinstance(error, ModelHTTPError)
    assert error.status_code == STATUS[name]
    assert OpenAIResponses("gpt-test", api_key=SECRET).is_exception_retryable(error, CODES)


async def test_a_failed_response_without_streaming_is_classified_by_its_code(
    hostile: HostileServer,
) -> None:
    failed = {**RESPONSE, "status": "failed", "error": {"code": "invalid_prompt", "message": "no"}}
    hostile.script(Raw(body=[json.dumps(failed).encode()], framing="length"))
    _, error = await attempt(hostile, stream=False)
    assert isinstance(error, ModelHTTPError) and error.status_code == 400


@pytest.mark.parametrize("pieces", [(STARTED,), (STARTED, DELTA)], ids=["before", "after"])
async def test_a_stream_that_ends_without_response_completed_is_a_connection_error(
    pieces: tuple[tuple[str, dict[str, Any]], ...], hostile: HostileServer
) -> None:
    hostile.script(Raw(headers={"content-type": "text/event-stream"}, body=events(*pieces)))
    seen, error = await attempt(hostile)
    assert isinstance(error, ModelConnectionError) and "response.completed" in str(error)
    assert [r.text for r in seen] == (["Order "] if DELTA in pieces else [])


async def test_a_cut_stream_is_retried_only_while_nothing_was_yielded(
    hostile: HostileServer, clock: FakeClock
) -> None:
    completed = {**RESPONSE, "status": "completed", "output": []}
    message = {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed"}
    message["content"] = [{"type": "output_text", "text": "Order ", "annotations": []}]
    done = ("response.output_item.done", {"output_index": 0, "item": message})
    sse = {"content-type": "text/event-stream"}
    hostile.script(
        Raw(headers=sse, body=events(STARTED)),
        Raw(
            headers=sse,
            body=events(STARTED, DELTA, done, ("response.completed", {"response": completed})),
        ),
    )
    adapter = OpenAIResponses("gpt-test", api_key=SECRET, base_url=f"{hostile.url}/v1")
    config = RunConfig(
        streaming_mode=StreamingMode.SSE,
        retry_config=RetryConfig(max_attempts=3, initial_backoff=0.5, jitter_ratio=0.0),
    )
    try:
        result = await run_turn(LlmAgent(name="a", model=adapter), "hi", run_config=config)
    finally:
        await adapter.aclose()
    assert result.error is None and result.final_text == "Order "
    assert (len(hostile.requests), clock.sleeps) == (2, [0.5])
