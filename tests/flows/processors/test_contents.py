from steadyflow import Content, Event, LlmAgent
from steadyflow.flows.processors.contents import event_to_content
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
    rebuilt = [event_to_content(e, "a", None) for e in session.events[:-2]]  # not a3, trace
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
