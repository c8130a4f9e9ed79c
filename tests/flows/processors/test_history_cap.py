from tests.history.histories import (
    AGENT,
    build_request,
    calls,
    chat,
    process,
    responses,
    said,
    user,
)

from steadyflow import Content, HistoryPolicy, LlmAgent, Part
from steadyflow.flows.processors._contents import event_to_content
from steadyflow.history.tokens import CONTENT_OVERHEAD_TOKENS
from steadyflow.testing import ScriptedLlm, call, run_turn


def agent_with(policy: HistoryPolicy, model: ScriptedLlm | None = None) -> LlmAgent:
    return LlmAgent(name=AGENT, model=model or ScriptedLlm([]), history=policy)


async def prefilled(agent: LlmAgent, events):
    first = await run_turn(agent, "hello")
    runner = first.runner
    assert runner is not None
    session = await first.stored_session()
    for event in events:
        await runner.session_service.append_event(session, event)
    return runner, first.session_id


async def test_a_3000_event_session_sends_only_the_capped_window():
    model = ScriptedLlm(["hi", "fine"])
    agent = agent_with(HistoryPolicy(max_events=20), model)
    history = chat(1500)
    runner, session_id = await prefilled(agent, history)  # 3,000 events

    await run_turn(agent, "and now?", runner=runner, session_id=session_id)

    sent = model.requests[1].contents
    assert [c.text for c in sent] == [e.text for e in history[-19:]] + ["and now?"]


async def test_the_request_stays_the_same_size_as_the_session_grows():
    model = ScriptedLlm([call("lookup", {"q": str(i)}) if i % 2 else f"a{i}" for i in range(60)])
    agent = LlmAgent(name=AGENT, model=model, tools=[lookup], history=HistoryPolicy(max_events=8))
    first = await run_turn(agent, "start")
    for turn in range(30):
        await run_turn(agent, f"turn {turn}", runner=first.runner, session_id=first.session_id)

    assert max(len(r.contents) for r in model.requests) <= 8
    assert len((await first.stored_session()).events) > 100


def lookup(q: str) -> dict[str, str]:
    return {"found": q}


def test_a_cap_never_starts_the_request_between_a_call_and_its_response():
    events = [*chat(10), user("go", 30), calls(["x"], 31), responses(["x"], 32), said("done", 33)]
    events.append(user("next", 34))
    request = build_request(agent_with(HistoryPolicy(max_events=3)), events)
    assert [c.text for c in request.contents] == ["done", "next"]


def test_a_long_running_result_from_the_user_brings_its_call_along():
    events = [user("start the export", 0), calls(["job"], 1, name="wait")]
    events += chat(50)[2:]
    events.append(responses(["job"], 200, author="user", name="wait"))
    request = build_request(agent_with(HistoryPolicy(max_events=2)), events)

    parts = [p for c in request.contents for p in c.parts]
    assert [p.function_call.id for p in parts if p.function_call] == ["job"]
    assert [p.function_response.id for p in parts if p.function_response] == ["job"]
    assert len(request.contents) == 2


def test_without_a_cap_the_whole_history_is_sent():
    events = chat(40)
    request = build_request(agent_with(HistoryPolicy(warn_input_tokens=10**9)), events)
    assert len(request.contents) == 80


def test_token_budget_keeps_the_request_under_it_with_reported_usage():
    # Each answer is 3 characters but the provider reported 100 output tokens for it.
    events = []
    for _ in range(50):
        events.append(user("q?", len(events)))  # estimated: 4 + 1 tokens
        events.append(said("ok.", len(events), output_tokens=100))  # counted: 4 + 100
    events.append(user("last", len(events)))
    budget = 1000
    request = build_request(agent_with(HistoryPolicy(max_tokens=budget)), events)

    cost = sum(
        CONTENT_OVERHEAD_TOKENS + (100 if c.role == "model" else 1) for c in request.contents
    )
    assert cost <= budget
    assert cost + CONTENT_OVERHEAD_TOKENS + 100 > budget  # and no more was dropped than needed
    assert len(request.contents) == 2 * 9 + 1


def test_token_budget_estimates_messages_without_usage():
    events = [user("x" * 400, i) if i % 2 == 0 else said("y" * 400, i) for i in range(40)]
    events.append(user("last", 40))
    request = build_request(agent_with(HistoryPolicy(max_tokens=1000)), events)
    # each earlier message: 4 + 100 estimated tokens; the last: 4 + 1
    assert len(request.contents) == 1 + (1000 - 5) // 104


async def test_the_model_receives_exactly_what_the_processor_built():
    model = ScriptedLlm(["ok", "again"])
    agent = agent_with(HistoryPolicy(max_events=5), model)
    runner, session_id = await prefilled(agent, chat(20, tools_every=3))

    result = await run_turn(agent, "latest", runner=runner, session_id=session_id)

    stored = (await result.stored_session()).events
    up_to_question = stored[: [e.text for e in stored].index("latest") + 1]
    expected = await process(agent_with(HistoryPolicy(max_events=5)), up_to_question)
    assert model.requests[-1].contents == expected.contents
    # the last 5 would start at a tool response, so its call/response pair is left out
    assert [c.text for c in expected.contents] == [
        "answer 18",
        "question 19",
        "answer 19",
        "latest",
    ]


def test_other_agents_summary_like_events_are_plain_history():
    event = said("plain", 0, author="b")
    assert event_to_content(event, AGENT, None) == Content(
        role="user", parts=[Part(text="For context:"), Part(text="[b] said: plain")]
    )
