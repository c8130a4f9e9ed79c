"""The orchestration loop, end to end through the public API."""

from steadyflow import Event, LlmAgent, LlmCallsLimitExceededError, RunConfig
from steadyflow.models import LlmResponse
from steadyflow.testing import ScriptedLlm, call, run_turn

ORDERS = {"812": {"status": "shipped", "carrier": "DHL"}}


def lookup_order(order_id: str) -> dict:
    """Look up an order.

    Args:
        order_id: the order number.
    """
    return {"order_id": order_id, **ORDERS.get(order_id, {"status": "unknown"})}


def order_agent(model, **kwargs) -> LlmAgent:
    return LlmAgent(
        name="order_support",
        model=model,
        instruction="Answer questions about the customer's orders. Use lookup_order.",
        tools=[lookup_order],
        **kwargs,
    )


async def test_two_call_turn_makes_two_model_calls_and_three_events():
    model = ScriptedLlm([call("lookup_order", {"order_id": "812"}), "Order 812 has shipped."])
    result = await run_turn(order_agent(model), "Where is order 812?")

    assert result.error is None
    assert model.calls == 2
    kinds = [
        ("call" if e.get_function_calls() else "response" if e.get_function_responses() else "text")
        for e in result.events
    ]
    assert kinds == ["call", "response", "text"]
    assert result.final_text == "Order 812 has shipped."
    model.assert_complete()


async def test_second_request_holds_the_call_and_its_result():
    model = ScriptedLlm([call("lookup_order", {"order_id": "812"}), "Shipped."])
    await run_turn(order_agent(model), "Where is order 812?")

    second = model.requests[1]
    roles = [c.role for c in second.contents]
    assert roles == ["user", "model", "user"]
    fc = second.contents[1].parts[0].function_call
    fr = second.contents[2].parts[0].function_response
    assert fc is not None and fc.name == "lookup_order" and fc.args == {"order_id": "812"}
    assert fr is not None and fr.id == fc.id and fr.response["status"] == "shipped"


async def test_session_holds_the_user_event_and_the_three_turn_events():
    model = ScriptedLlm([call("lookup_order", {"order_id": "812"}), "Shipped."])
    result = await run_turn(order_agent(model), "Where is order 812?")

    session = await result.stored_session()
    assert [e.author for e in session.events] == ["user"] + ["order_support"] * 3
    assert [e.id for e in session.events[1:]] == [e.id for e in result.events]


async def test_request_carries_instruction_identity_and_tool_declaration():
    model = ScriptedLlm(["hi"])
    await run_turn(order_agent(model, description="Answers order questions."), "hello")

    request = model.requests[0]
    assert request.model == "scripted-model"
    system = request.config.system_instruction or ""
    assert "Use lookup_order." in system
    assert 'internal name is "order_support"' in system
    (declaration,) = request.config.tools
    assert declaration.name == "lookup_order"
    assert declaration.parameters["properties"]["order_id"]["description"] == "the order number."
    assert declaration.parameters["required"] == ["order_id"]


async def test_before_model_short_circuit_calls_no_model_and_uses_no_budget():
    model = ScriptedLlm([])
    seen_requests = []

    def cached(callback_context, llm_request):
        seen_requests.append(llm_request)
        return LlmResponse.from_text("cached answer")

    agent = order_agent(model, before_model_callback=cached)
    result = await run_turn(agent, "Where is order 812?", run_config=RunConfig(max_llm_calls=1))

    assert result.error is None
    assert model.calls == 0
    assert [e.text for e in result.events] == ["cached answer"]
    assert len(seen_requests) == 1  # the turn ended after the short-circuit


async def test_budget_zero_short_circuits_still_work_since_no_call_is_made():
    agent = order_agent(
        ScriptedLlm([]), before_model_callback=lambda **_: LlmResponse.from_text("ok")
    )
    result = await run_turn(agent, "hi", run_config=RunConfig(max_llm_calls=1))
    assert result.final_text == "ok"


async def test_tool_loop_stops_at_max_llm_calls_with_that_many_calls():
    model = ScriptedLlm([call("lookup_order", {"order_id": "812"})] * 40)
    result = await run_turn(order_agent(model), "loop", run_config=RunConfig(max_llm_calls=15))

    assert isinstance(result.error, LlmCallsLimitExceededError)
    assert result.error.limit == 15
    assert model.calls == 15
    session = await result.stored_session()
    calls = sum(1 for e in session.events if e.get_function_calls())
    responses = sum(1 for e in session.events if e.get_function_responses())
    assert calls == responses == 15  # no call without its response


async def test_budget_error_never_reaches_on_model_error_callbacks():
    seen = []
    model = ScriptedLlm([call("lookup_order", {"order_id": "1"})] * 5)
    agent = order_agent(model, on_model_error_callback=lambda **kw: seen.append(kw["error"]))
    result = await run_turn(agent, "loop", run_config=RunConfig(max_llm_calls=2))
    assert isinstance(result.error, LlmCallsLimitExceededError)
    assert seen == []


async def test_non_positive_budget_turns_the_limit_off():
    model = ScriptedLlm([call("lookup_order", {"order_id": "1"})] * 600 + ["done"])
    result = await run_turn(order_agent(model), "go", run_config=RunConfig(max_llm_calls=0))
    assert result.error is None
    assert model.calls == 601


async def test_budget_is_per_invocation():
    model = ScriptedLlm(["one", "two"])
    agent = order_agent(model)
    config = RunConfig(max_llm_calls=1)
    first = await run_turn(agent, "a", run_config=config)
    second = await run_turn(
        agent, "b", run_config=config, runner=first.runner, session_id=first.session_id
    )
    assert first.final_text == "one" and second.final_text == "two"


async def test_run_one_step_takes_the_context_alone_and_runs_one_call_with_its_tools():
    from steadyflow import InMemorySessionService
    from steadyflow.context import InvocationContext, LlmCallBudget
    from steadyflow.sessions.base import Session
    from steadyflow.types import Content

    model = ScriptedLlm([call("lookup_order", {"order_id": "812"}), "never asked"])
    agent = order_agent(model)
    user = Event(author="user", content=Content.from_text("Where is 812?", role="user"))
    ctx = InvocationContext(
        invocation_id="e-1",
        agent=agent,
        session=Session(app_name="app", user_id="u", events=[user]),
        session_service=InMemorySessionService(),
        run_config=RunConfig(),
        budget=LlmCallBudget(10),
    )

    events = [e async for e in agent.flow.run_one_step(agent, ctx)]

    assert model.calls == 1
    assert [bool(e.get_function_calls()) for e in events] == [True, False]
    assert events[1].get_function_responses()[0].response["status"] == "shipped"
