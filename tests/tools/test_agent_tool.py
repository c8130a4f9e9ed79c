"""``AgentTool``: a coordinator calls a specialist agent like a function.

Each test runs a real ``Runner`` turn with ``ScriptedLlm`` models and
asserts what a user can observe: the requests each model saw, the stored
session, the invocation's record and trace.
"""

from __future__ import annotations

import pytest
from pydantic import BaseModel
from tests.durable.test_resume import Crash, as_if_killed, responses_seen, resumed, stored

from steadyflow import (
    AgentTool,
    Content,
    FunctionTool,
    LlmAgent,
    LlmCallsLimitExceededError,
    RunConfig,
    Runner,
    ToolContext,
    UsageMetadata,
)
from steadyflow.durable import INTERRUPTED_RESPONSE
from steadyflow.errors import UsageLimitExceededError
from steadyflow.models import LlmResponse
from steadyflow.plugins import BasePlugin
from steadyflow.sessions import InMemorySessionService
from steadyflow.testing import ScriptedLlm, call
from steadyflow.usage import UsageLimits

pytestmark = pytest.mark.asyncio


def researcher(model: ScriptedLlm, **kwargs) -> LlmAgent:
    return LlmAgent(
        name="researcher",
        model=model,
        description="Finds facts. Ask it one precise question.",
        instruction="Answer the question.",
        **kwargs,
    )


def coordinator(model: ScriptedLlm, specialist: LlmAgent, **kwargs) -> LlmAgent:
    return LlmAgent(name="coordinator", model=model, tools=[AgentTool(specialist, **kwargs)])


async def turn(agent: LlmAgent, text: str = "hi", state: dict | None = None, **config):
    runner = Runner(app_name="app", agent=agent, session_service=InMemorySessionService())
    session = await runner.create_session(user_id="u", state=state)
    run_config = RunConfig(**config)
    events = [
        e
        async for e in runner.run_async(
            user_id="u", session_id=session.id, new_message=text, run_config=run_config
        )
    ]
    return runner, session.id, events


def answer(text: str, output_tokens: int) -> LlmResponse:
    usage = UsageMetadata(
        input_tokens=1, output_tokens=output_tokens, total_tokens=1 + output_tokens
    )
    return LlmResponse(content=Content.from_text(text, role="model"), usage_metadata=usage)


async def test_the_specialists_answer_comes_back_and_its_events_stay_out_of_the_session():
    inner = ScriptedLlm(["Order 812 shipped on Monday."])
    outer = ScriptedLlm(
        [call("researcher", {"request": "When did order 812 ship?"}), "It shipped Monday."]
    )
    runner, session_id, events = await turn(coordinator(outer, researcher(inner)), "Where is 812?")

    (declared,) = outer.requests[0].config.tools
    assert declared.name == "researcher"
    assert declared.description == "Finds facts. Ask it one precise question."
    assert declared.parameters["required"] == ["request"]
    # The specialist sees the request alone, not the coordinator's conversation.
    assert [(c.role, c.parts[0].text) for c in inner.requests[0].contents] == [
        ("user", "When did order 812 ship?")
    ]
    assert responses_seen(outer, 1) == [{"result": "Order 812 shipped on Monday."}]
    session, _ = await stored(runner, session_id)
    assert [e.author for e in session.events] == [
        "user",
        "coordinator",
        "coordinator",
        "coordinator",
    ]
    assert events[-1].text == "It shipped Monday."


async def test_the_specialists_steps_are_nested_in_the_callers_stored_trace():
    inner = ScriptedLlm([call("lookup", {"order_id": "812"}), "shipped"])

    def lookup(order_id: str) -> dict:
        """Look an order up."""
        return {"order_id": order_id, "status": "shipped"}

    specialist = researcher(inner, tools=[lookup])
    outer = ScriptedLlm([call("researcher", {"request": "812?"}), "shipped"])
    runner, session_id, _ = await turn(coordinator(outer, specialist))

    _, (record,) = await stored(runner, session_id)
    steps = record.trace.steps
    assert [(s.number, s.agent, s.path) for s in steps] == [
        (1, "coordinator", None),
        (2, "researcher", ["coordinator", "researcher"]),
        (3, "researcher", ["coordinator", "researcher"]),
        (4, "coordinator", None),
    ]
    assert [t.name for t in steps[0].tools] == ["researcher"]
    assert [t.name for t in steps[1].tools] == ["lookup"]
    assert record.llm_calls == 4


async def test_the_specialists_model_calls_count_against_the_callers_max_llm_calls():
    inner = ScriptedLlm([call("lookup", {}), "never reached"])
    specialist = researcher(inner, tools=[FunctionTool(lambda: {"ok": True}, name="lookup")])
    outer = ScriptedLlm([call("researcher", {"request": "812?"}), "never reached"])
    with pytest.raises(LlmCallsLimitExceededError):
        await turn(coordinator(outer, specialist), max_llm_calls=2)

    # Coordinator 1, specialist 1: the specialist's second call and the
    # coordinator's next one both find the shared budget spent.
    assert (len(outer.requests), len(inner.requests)) == (1, 1)


async def test_the_specialists_usage_counts_against_the_callers_usage_limits():
    inner = ScriptedLlm([answer("a very long answer", output_tokens=100)])
    outer = ScriptedLlm([call("researcher", {"request": "812?"}), "never reached"])
    # Overshoot allowed: the specialist's answer is admitted whole, and what it
    # wrote then refuses the caller's next call.
    limits = UsageLimits(max_output_tokens=50, allow_overshoot=True)
    with pytest.raises(UsageLimitExceededError):
        await turn(coordinator(outer, researcher(inner)), usage_limits=limits)

    assert (len(outer.requests), len(inner.requests)) == (1, 1)


async def test_the_specialist_reads_the_callers_state_and_its_writes_are_merged_back():
    inner = ScriptedLlm(["the answer about shoes"])
    specialist = LlmAgent(
        name="researcher",
        model=inner,
        instruction="The customer's topic is {topic}.",
        output_key="finding",
    )
    outer = ScriptedLlm([call("researcher", {"request": "look it up"}), "done"])
    runner, session_id, _ = await turn(coordinator(outer, specialist), state={"topic": "shoes"})

    assert inner.requests[0].config.system_instruction is not None
    assert "The customer's topic is shoes." in inner.requests[0].config.system_instruction
    session, _ = await stored(runner, session_id)
    assert session.state["finding"] == "the answer about shoes"
    (response_event,) = [e for e in session.events if e.get_function_responses()]
    assert response_event.actions.state_delta == {"finding": "the answer about shoes"}


class Finding(BaseModel):
    order_id: str
    status: str
    note: str | None = None


async def test_an_output_schema_answer_comes_back_as_a_json_object():
    inner = ScriptedLlm(['{"order_id": "812", "status": "shipped"}'])
    outer = ScriptedLlm([call("researcher", {"request": "812?"}), "done"])
    await turn(coordinator(outer, researcher(inner, output_schema=Finding)))

    assert responses_seen(outer, 1) == [{"order_id": "812", "status": "shipped"}]


async def test_an_answer_that_misses_the_output_schema_is_an_error_the_model_reads():
    inner = ScriptedLlm(["not json at all"])
    outer = ScriptedLlm([call("researcher", {"request": "812?"}), "done"])
    await turn(coordinator(outer, researcher(inner, output_schema=Finding)))

    (response,) = responses_seen(outer, 1)
    assert "does not match its output_schema Finding" in response["error"]
    assert response["answer"] == "not json at all"


async def test_a_request_that_is_not_a_string_is_refused_before_the_specialist_runs():
    inner = ScriptedLlm([])
    outer = ScriptedLlm([call("researcher", {"request": 812}), "done"])
    await turn(coordinator(outer, researcher(inner)))

    assert inner.requests == []
    assert responses_seen(outer, 1) == [
        {"error": "researcher: 'request' must be a non-empty string"}
    ]


async def test_skip_summarization_ends_the_turn_with_the_specialists_answer():
    inner = ScriptedLlm(["Order 812 shipped."])
    outer = ScriptedLlm([call("researcher", {"request": "812?"})])
    _, _, events = await turn(coordinator(outer, researcher(inner), skip_summarization=True))

    assert len(outer.requests) == 1
    assert events[-1].get_function_responses()[0].response == {"result": "Order 812 shipped."}
    assert events[-1].is_final_response()


async def test_a_confirmation_asked_inside_the_specialist_is_refused_with_a_typed_error():
    runs: list[str] = []

    def refund(order_id: str) -> dict:
        """Refund an order."""
        runs.append(order_id)
        return {"refunded": order_id}

    tool = FunctionTool(refund, require_confirmation=True)
    inner = ScriptedLlm([call("refund", {"order_id": "812"}), "never reached"])
    outer = ScriptedLlm([call("researcher", {"request": "refund 812"}), "I could not."])
    runner, session_id, events = await turn(coordinator(outer, researcher(inner, tools=[tool])))

    assert runs == []
    (response,) = responses_seen(outer, 1)
    assert response["error"].startswith("agent tool 'researcher' stopped: its tool 'refund' asked")
    _, (record,) = await stored(runner, session_id)
    assert record.status.value == "completed"
    assert record.trace.steps[0].tools[0].error_type == "NestedConfirmationError"
    assert events[-1].text == "I could not."


async def test_a_crash_inside_the_specialist_resumes_without_running_it_again():
    def lookup(order_id: str, tool_context: ToolContext) -> dict:
        """Look an order up."""
        raise Crash

    inner = ScriptedLlm([call("lookup", {"order_id": "812"}), "never reached"])
    specialist = researcher(inner, tools=[lookup])
    outer = ScriptedLlm([call("researcher", {"request": "812?"}), "I could not tell."])
    agent = coordinator(outer, specialist)
    runner = Runner(app_name="app", agent=agent, session_service=InMemorySessionService())
    session = await runner.create_session(user_id="u")
    with pytest.raises(Crash):
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="go"):
            pass
    await as_if_killed(runner, session.id)

    events = await resumed(runner, session.id)

    assert len(inner.requests) == 1  # the specialist's committed call is not made again
    assert responses_seen(outer, 1) == [INTERRUPTED_RESPONSE]
    assert events[-1].text == "I could not tell."
    _, (record,) = await stored(runner, session.id)
    assert record.llm_calls == 3  # coordinator, specialist before the crash, coordinator


async def test_two_specialists_called_side_by_side_each_answer_and_both_writes_merge():
    pricing = LlmAgent(name="pricing", model=ScriptedLlm(["42 EUR"]), output_key="price")
    stock = LlmAgent(name="stock", model=ScriptedLlm(["3 left"]), output_key="stock")
    outer = ScriptedLlm(
        [[call("pricing", {"request": "price?"}), call("stock", {"request": "stock?"})], "done"]
    )
    agent = LlmAgent(name="coordinator", model=outer, tools=[AgentTool(pricing), AgentTool(stock)])
    runner, session_id, _ = await turn(agent)

    assert responses_seen(outer, 1) == [{"result": "42 EUR"}, {"result": "3 left"}]
    session, (record,) = await stored(runner, session_id)
    assert (session.state["price"], session.state["stock"]) == ("42 EUR", "3 left")
    nested = sorted(tuple(s.path or []) for s in record.trace.steps if s.agent != "coordinator")
    assert nested == [("coordinator", "pricing"), ("coordinator", "stock")]


async def test_an_agent_tool_inside_a_specialist_nests_one_level_deeper():
    fact_checker = LlmAgent(name="fact_checker", model=ScriptedLlm(["true"]))
    inner = ScriptedLlm([call("fact_checker", {"request": "is 812 shipped?"}), "812 shipped"])
    specialist = researcher(inner, tools=[AgentTool(fact_checker)])
    outer = ScriptedLlm([call("researcher", {"request": "812?"}), "done"])
    runner, session_id, _ = await turn(coordinator(outer, specialist))

    assert responses_seen(inner, 1) == [{"result": "true"}]
    _, (record,) = await stored(runner, session_id)
    assert [(s.agent, s.path) for s in record.trace.steps] == [
        ("coordinator", None),
        ("researcher", ["coordinator", "researcher"]),
        ("fact_checker", ["coordinator", "researcher", "fact_checker"]),
        ("researcher", ["coordinator", "researcher"]),
        ("coordinator", None),
    ]


async def test_the_specialist_sees_the_callers_temp_state_of_this_invocation():
    def remember(callback_context, llm_request):
        callback_context.state["temp:customer"] = "Ada"

    inner = ScriptedLlm(["ok"])
    specialist = LlmAgent(name="researcher", model=inner, instruction="Customer: {temp:customer}.")
    outer = ScriptedLlm([call("researcher", {"request": "812?"}), "done"])
    agent = LlmAgent(
        name="coordinator",
        model=outer,
        tools=[AgentTool(specialist)],
        before_model_callback=remember,
    )
    await turn(agent)

    assert "Customer: Ada." in (inner.requests[0].config.system_instruction or "")


async def test_the_specialists_spans_are_children_of_the_tool_call_span(spans):
    inner = ScriptedLlm(["shipped"])
    outer = ScriptedLlm([call("researcher", {"request": "812?"}), "done"])
    await turn(coordinator(outer, researcher(inner)))

    named = {span.name: span for span in spans.get_finished_spans()}
    coordinator_span = named["invoke_agent coordinator"]
    tool_span = named["execute_tool researcher"]
    specialist_span = named["invoke_agent researcher"]
    assert tool_span.parent.span_id == coordinator_span.context.span_id
    assert specialist_span.parent.span_id == tool_span.context.span_id
    assert {s.context.trace_id for s in spans.get_finished_spans()} == {
        coordinator_span.context.trace_id
    }


async def test_the_runners_plugins_see_the_specialists_model_calls():
    seen: list[str] = []

    class Recorder(BasePlugin):
        async def before_model_callback(self, *, callback_context, llm_request):
            seen.append(callback_context.agent_name)

    outer = ScriptedLlm([call("researcher", {"request": "812?"}), "done"])
    agent = coordinator(outer, researcher(ScriptedLlm(["shipped"])))
    runner = Runner(
        app_name="app",
        agent=agent,
        session_service=InMemorySessionService(),
        plugins=[Recorder("recorder")],
    )
    session = await runner.create_session(user_id="u")
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="hi"):
        pass

    assert seen == ["coordinator", "researcher", "coordinator"]
