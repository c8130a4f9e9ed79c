from __future__ import annotations

from bench.drivers import Setup, TurnStats
from bench.sides.sf_side import InstantLlm, SteadyflowAdapter

from steadyflow import Content, FunctionDeclaration, GenerateContentConfig, Part
from steadyflow.models import LlmRequest


def _request(*contents: Content, tools: bool = False) -> LlmRequest:
    declarations = [FunctionDeclaration(name="lookup_weather")] if tools else []
    return LlmRequest(contents=list(contents), config=GenerateContentConfig(tools=declarations))


def test_instant_llm_echoes_the_last_user_message():
    answer = InstantLlm().answer(_request(Content.from_text("hello")))

    assert answer.text == "You said: hello"


def test_instant_llm_calls_the_first_declared_tool_for_a_user_message():
    answer = InstantLlm().answer(_request(Content.from_text("weather?"), tools=True))

    assert answer.content is not None
    call = answer.content.parts[0].function_call
    assert call is not None
    assert (call.name, call.args) == ("lookup_weather", {"city": "Paris"})


def test_instant_llm_answers_a_tool_result_with_text():
    result = Content(
        parts=[Part.from_function_response("lookup_weather", {"forecast": "sunny"}, id="c1")]
    )
    answer = InstantLlm().answer(_request(Content.from_text("weather?"), result, tools=True))

    assert answer.text == "lookup_weather says {'forecast': 'sunny'}"


async def test_instant_llm_streams_the_requested_chunks_then_the_aggregate():
    request = _request(Content.from_text("hi"))

    responses = [r async for r in InstantLlm(chunks=3).generate_content_async(request, True)]

    assert [r.partial for r in responses] == [True, True, True, None]
    assert responses[-1].text == "sunny sunny sunny "


async def test_adapter_one_step_turn_makes_one_model_call():
    adapter = SteadyflowAdapter()
    try:
        stats = await adapter.turn(await adapter.conversation(Setup()))
    finally:
        await adapter.close()

    assert stats == TurnStats(model_calls=1)


async def test_adapter_tool_turn_makes_two_model_calls():
    adapter = SteadyflowAdapter()
    try:
        stats = await adapter.turn(await adapter.conversation(Setup(tools=True)))
    finally:
        await adapter.close()

    assert stats == TurnStats(model_calls=2)


async def test_adapter_streaming_turn_yields_one_event_per_chunk():
    adapter = SteadyflowAdapter()
    try:
        conversation = await adapter.conversation(Setup(stream_chunks=5, retries=True))
        stats = await adapter.turn(conversation)
    finally:
        await adapter.close()

    assert stats == TurnStats(model_calls=1, chunk_events=5)


async def test_adapter_fills_the_session_with_the_prior_events():
    adapter = SteadyflowAdapter()
    try:
        conversation = await adapter.conversation(Setup(store="memory", prior_events=6))
        session = await conversation.runner.session_service.get_session(
            app_name="bench", user_id="bench-user", session_id=conversation.session_id
        )
    finally:
        await adapter.close()

    assert session is not None
    assert [e.author for e in session.events] == ["user", "assistant"] * 3
