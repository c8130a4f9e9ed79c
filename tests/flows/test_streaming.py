"""SSE streaming: partial events for display, one complete event as the record."""

from steadyflow import Content, LlmAgent, Part, RunConfig, StreamingMode
from steadyflow.flows.processors import ResponseProcessor
from steadyflow.models import BaseLlm, LlmResponse
from steadyflow.testing import ScriptedLlm, Stream, call, run_turn

SSE = RunConfig(streaming_mode=StreamingMode.SSE)


def agent_with(model, tools=()) -> LlmAgent:
    return LlmAgent(name="streamer", model=model, tools=list(tools))


async def test_partials_then_one_complete_event():
    model = ScriptedLlm([Stream(["Order ", "812 ", "shipped."])])
    result = await run_turn(agent_with(model), "status?", run_config=SSE)

    assert [(e.partial, e.text) for e in result.events] == [
        (True, "Order "),
        (True, "812 "),
        (True, "shipped."),
        (None, "Order 812 shipped."),
    ]
    assert model.stream_flags == [True]


async def test_only_the_complete_event_is_stored():
    model = ScriptedLlm([Stream(["a", "b"])])
    result = await run_turn(agent_with(model), "hi", run_config=SSE)

    session = await result.stored_session()
    assert [e.text for e in session.events] == ["hi", "ab"]
    assert not any(e.partial for e in session.events)


async def test_client_concatenating_complete_events_sees_the_answer_once():
    model = ScriptedLlm([Stream(["The answer ", "is 42."])])
    result = await run_turn(agent_with(model), "q", run_config=SSE)
    assert "".join(e.text for e in result.events if not e.partial) == "The answer is 42."


async def test_function_calls_run_only_from_the_complete_event():
    ran = []

    def lookup(order_id: str) -> dict:
        ran.append(order_id)
        return {"ok": True}

    model = ScriptedLlm(
        [Stream(["Let me check."], function_calls=[call("lookup", {"order_id": "1"})]), "done"]
    )
    result = await run_turn(agent_with(model, [lookup]), "q", run_config=SSE)

    assert ran == ["1"]
    partials = [e for e in result.events if e.partial]
    assert partials and not any(e.get_function_calls() for e in partials)
    assert result.final_text == "done"


async def test_mode_none_asks_for_one_response():
    model = ScriptedLlm([Stream(["a", "b"])])
    result = await run_turn(agent_with(model), "hi")
    assert model.stream_flags == [False]
    assert [(e.partial, e.text) for e in result.events] == [(None, "ab")]


async def test_response_processors_see_every_chunk_and_the_complete_response():
    class Shout(ResponseProcessor):
        async def process(self, agent, ctx, response: LlmResponse) -> LlmResponse:
            return LlmResponse.from_text(response.text.upper(), partial=response.partial)

    agent = agent_with(ScriptedLlm([Stream(["ab", "cd"])]))
    agent.flow.response_processors.append(Shout())
    result = await run_turn(agent, "q", run_config=SSE)
    assert [(e.partial, e.text) for e in result.events] == [
        (True, "AB"),
        (True, "CD"),
        (None, "ABCD"),
    ]


class _StreamedCall(BaseLlm):
    """Streams a function call (no provider id) in a partial, then the complete response."""

    provider = "test"

    def __init__(self) -> None:
        super().__init__("streamed-call")
        self.calls = 0

    async def generate_content_async(self, request, stream=False):
        self.calls += 1
        if self.calls > 1:
            yield LlmResponse.from_text("done")
            return
        call_part = Part.from_function_call("lookup", {"q": "x"})
        yield LlmResponse(content=Content(role="model", parts=[call_part]), partial=True)
        complete = Part.from_function_call("lookup", {"q": "x"})
        yield LlmResponse(content=Content(role="model", parts=[complete]))


async def test_a_streamed_function_call_keeps_its_id_from_partial_to_complete_event():
    def lookup(q: str) -> str:
        """Look up.

        Args:
            q: query.
        """
        return q

    result = await run_turn(agent_with(_StreamedCall(), [lookup]), "q", run_config=SSE)

    partial, complete = result.events[0], result.events[1]
    assert partial.partial and not complete.partial
    (partial_call,) = partial.get_function_calls()
    (complete_call,) = complete.get_function_calls()
    assert partial_call.id and partial_call.id == complete_call.id
    assert result.events[2].get_function_responses()[0].id == complete_call.id
