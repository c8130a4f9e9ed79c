from tests.history.histories import process

from steadyflow import Content, Event, FunctionCall, LlmAgent, Part
from steadyflow.flows.processors._contents import event_to_content
from steadyflow.testing import ScriptedLlm, run_turn


def test_other_agents_messages_become_context_for_this_agent():
    event = Event(author="billing", content=Content.from_text("paid", role="model"))
    content = event_to_content(event, "support", None)
    assert content is not None
    assert content.role == "user"
    assert [p.text for p in content.parts] == ["For context:", "[billing] said: paid"]


def test_events_of_another_branch_are_hidden():
    event = Event(author="x", branch="root.left", content=Content.from_text("left"))
    assert event_to_content(event, "a", "root.right") is None
    assert event_to_content(event, "a", "root.left.deeper") is not None


def test_partial_and_empty_events_are_skipped():
    assert (
        event_to_content(Event(author="a", content=Content.from_text("p"), partial=True), "a", None)
        is None
    )
    assert event_to_content(Event(author="a"), "a", None) is None


async def test_contents_grow_incrementally_and_match_a_full_rebuild():
    model = ScriptedLlm(["a1", "a2", "a3"])
    agent = LlmAgent(name="a", model=model)
    first = await run_turn(agent, "q1")
    await run_turn(agent, "q2", runner=first.runner, session_id=first.session_id)
    await run_turn(agent, "q3", runner=first.runner, session_id=first.session_id)

    session = await first.stored_session()
    rebuilt = [event_to_content(e, "a", None) for e in session.events[:-1]]  # not a3
    assert model.requests[2].contents == [c for c in rebuilt if c is not None]


async def test_a_new_session_with_a_reused_id_does_not_see_the_old_history():
    model = ScriptedLlm(["old", "new"])
    agent = LlmAgent(name="a", model=model)
    first = await run_turn(agent, "old question", session_id=None)
    runner = first.runner
    assert runner is not None
    await runner.session_service.delete_session(
        app_name=runner.app_name, user_id="user", session_id=first.session_id
    )
    await runner.create_session(user_id="user", session_id=first.session_id)
    await run_turn(agent, "new question", runner=runner, session_id=first.session_id)
    assert [c.text for c in model.requests[1].contents] == ["new question"]


async def test_requests_share_the_sessions_contents_instead_of_copying_them():
    model = ScriptedLlm(["a1", "a2"])
    agent = LlmAgent(name="a", model=model)
    first = await run_turn(agent, "q1")
    await run_turn(agent, "q2", runner=first.runner, session_id=first.session_id)

    session = await first.stored_session()
    sent = model.requests[1].contents
    assert sent[0] is session.events[0].content
    assert sent[1] is session.events[1].content


def test_events_with_only_empty_text_or_thoughts_are_not_replayed():
    empty = Event(author="a", content=Content(role="model", parts=[Part(text="")]))
    thinking = Content(role="model", parts=[Part(text="let me think", thought=True)])
    assert event_to_content(empty, "a", None) is None
    assert event_to_content(Event(author="a", content=thinking), "a", None) is None
    # another agent's thought-only message is no "For context:" message either
    assert event_to_content(Event(author="b", content=thinking), "a", None) is None


def _approval_history() -> list[Event]:
    call = Part(function_call=FunctionCall(id="c1", name="approve", args={"amount": 5}))
    pending = Part.from_function_response("approve", {"status": "pending"}, id="c1")
    final = Part.from_function_response("approve", {"status": "approved"}, id="c1")
    return [
        Event(author="user", content=Content.from_text("refund 5")),
        Event(author="a", content=Content(role="model", parts=[call])),
        Event(author="a", content=Content(role="user", parts=[pending])),
        Event(author="a", content=Content.from_text("Waiting for approval.", role="model")),
        Event(author="user", content=Content.from_text("any news?")),
        Event(author="a", content=Content.from_text("Still waiting.", role="model")),
        Event(author="user", content=Content(role="user", parts=[final])),
    ]


async def test_a_late_long_running_result_is_sent_right_after_its_call():
    request = await process(LlmAgent(name="a", model=ScriptedLlm([])), _approval_history())

    shapes = [
        [p.text or (p.function_call or p.function_response).name for p in c.parts]
        for c in request.contents
    ]
    assert shapes == [["refund 5"], ["approve"], ["approve"]]
    response = request.contents[-1].parts[0].function_response
    assert response is not None and response.response == {"status": "approved"}


async def test_after_a_late_result_later_turns_keep_it_paired_with_its_call():
    events = _approval_history()
    events += [
        Event(author="a", content=Content.from_text("Refund approved.", role="model")),
        Event(author="user", content=Content.from_text("thanks")),
    ]
    request = await process(LlmAgent(name="a", model=ScriptedLlm([])), events)

    texts = [c.parts[0].text for c in request.contents]
    responses = [c.parts[0].function_response for c in request.contents]
    assert texts[0] == "refund 5" and texts[-2:] == ["Refund approved.", "thanks"]
    # the call is followed by its latest response only; the text in between stays
    assert responses[2] is not None and responses[2].response == {"status": "approved"}
    assert sum(r is not None for r in responses) == 1
    assert "Waiting for approval." in texts and "Still waiting." in texts


async def test_a_late_result_paired_by_a_client_id_is_sent_paired_without_the_id():
    # The call's id was made on the client (the model gave none): pairing uses it,
    # the model never sees it.
    events = _approval_history()
    for event in events:
        for part in event.content.parts if event.content else []:
            named = part.function_call or part.function_response
            if named is not None:
                named.id = "sf-c1"
    request = await process(LlmAgent(name="a", model=ScriptedLlm([])), events)

    call, response = request.contents[1].parts[0], request.contents[2].parts[0]
    assert call.function_call is not None and call.function_call.id is None
    assert response.function_response is not None
    assert response.function_response.response == {"status": "approved"}
    assert response.function_response.id is None
    assert events[1].content.parts[0].function_call.id == "sf-c1"  # the session keeps it
