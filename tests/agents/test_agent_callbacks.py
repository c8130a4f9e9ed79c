"""before_agent_callback / after_agent_callback, on LlmAgents and workflow agents."""

from steadyflow import CallbackContext, Content, LlmAgent, SequentialAgent
from steadyflow.testing import ScriptedLlm, run_turn


async def test_before_agent_content_answers_instead_of_the_agent():
    model = ScriptedLlm([])

    def closed(callback_context: CallbackContext) -> Content:
        return Content.from_text("We are closed today.")

    result = await run_turn(LlmAgent(name="a", model=model, before_agent_callback=closed), "hi")

    assert result.error is None
    assert [(e.author, e.text) for e in result.events] == [("a", "We are closed today.")]
    assert result.events[0].content.role == "model"
    assert model.calls == 0


async def test_after_agent_content_is_one_more_event_after_the_agents_own():
    def sign(callback_context: CallbackContext) -> Content:
        callback_context.state["signed"] = True
        return Content.from_text("-- the support team")

    agent = LlmAgent(name="a", model=ScriptedLlm(["answer"]), after_agent_callback=sign)
    result = await run_turn(agent, "hi")

    assert [e.text for e in result.events] == ["answer", "-- the support team"]
    session = await result.stored_session()
    assert session.state["signed"] is True


async def test_before_agent_state_write_without_content_is_stored_and_the_agent_runs():
    async def stamp(callback_context: CallbackContext) -> None:
        callback_context.state["started"] = "yes"

    model = ScriptedLlm(["ran"])
    result = await run_turn(LlmAgent(name="a", model=model, before_agent_callback=stamp), "hi")

    assert result.final_text == "ran"
    session = await result.stored_session()
    assert session.state["started"] == "yes"


async def test_a_skipped_stage_lets_the_pipeline_go_on():
    second = ScriptedLlm(["second ran"])
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[
            LlmAgent(
                name="first",
                model=ScriptedLlm([]),
                before_agent_callback=lambda callback_context: Content.from_text("skipped"),
            ),
            LlmAgent(name="second", model=second),
        ],
        after_agent_callback=lambda callback_context: Content.from_text("pipeline done"),
    )
    result = await run_turn(pipeline, "go")
    assert [(e.author, e.text) for e in result.events] == [
        ("first", "skipped"),
        ("second", "second ran"),
        ("pipeline", "pipeline done"),
    ]
