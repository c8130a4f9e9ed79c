"""Usage spans a crash: a resumed invocation counts from what it had used."""

from __future__ import annotations

import pytest

from steadyflow import LlmAgent, RunConfig, Runner
from steadyflow.errors import UsageLimitExceededError
from steadyflow.testing import ScriptedLlm
from steadyflow.testing.scripted import call
from steadyflow.types import GenerateContentConfig
from steadyflow.usage import UsageLimits
from tests.durable.test_resume import Crash, Tools, as_if_killed, crash_then, resumed

from .helpers import records, tool_call


async def test_usage_before_the_crash_counts_against_the_limits_after_it(service) -> None:
    model = ScriptedLlm([tool_call("noop", 400, 50, order_id="1"), "never"])
    tools = Tools(crash={"noop"})  # the process dies while the tool runs
    config = GenerateContentConfig(max_output_tokens=5)
    agent = LlmAgent(
        name="a", model=model, tools=[tools.make("noop")], generate_content_config=config
    )
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await runner.create_session(user_id="u")
    config = RunConfig(usage_limits=UsageLimits(max_total_tokens=460))
    events = []
    with pytest.raises((Crash, BaseExceptionGroup)):
        async for event in runner.run_async(
            user_id="u", session_id=session.id, new_message="go", run_config=config
        ):
            events.append(event)
    await as_if_killed(runner, session.id)
    (record,) = await records(runner, session.id)
    assert (record.usage["input_tokens"], record.usage["output_tokens"]) == (400, 50)
    assert record.usage["limits"] == {"max_total_tokens": 460}
    with pytest.raises(UsageLimitExceededError) as caught:
        await resumed(runner, session.id)  # the record's limits, and its usage so far
    assert caught.value.used == 450
    assert len(model.requests) == 1  # without the usage carried over, it would be admitted


async def test_a_resume_without_usage_before_counts_from_zero(service) -> None:
    model = ScriptedLlm([Crash(), "hello"])
    runner = Runner(app_name="app", agent=LlmAgent(name="a", model=model), session_service=service)
    session = await runner.create_session(user_id="u")
    await crash_then(runner, session.id, llm_calls=0)
    events = await resumed(runner, session.id)
    assert [e.text for e in events] == ["hello"]
    (record,) = await records(runner, session.id)
    assert record.usage["attempts"] == 1


async def test_tool_calls_before_the_crash_count_against_the_tool_call_limit_after_it(
    service,
) -> None:
    lookup = call("lookup", {"order_id": "1"})
    model = ScriptedLlm([lookup, Crash(), call("lookup", {"order_id": "2"}), "done"])
    tools = Tools(crash=set())
    agent = LlmAgent(name="a", model=model, tools=[tools.make("lookup")])
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await runner.create_session(user_id="u")
    config = RunConfig(usage_limits=UsageLimits(max_tool_calls=1))
    with pytest.raises(Crash):  # the process dies during the second model call
        async for _ in runner.run_async(
            user_id="u", session_id=session.id, new_message="go", run_config=config
        ):
            pass
    await as_if_killed(runner, session.id)
    events = await resumed(runner, session.id)
    assert [name for name, _ in tools.runs] == ["lookup"]  # the second call was refused
    refused = [r.response for e in events for r in e.get_function_responses()]
    assert refused == [
        {
            "error": "tool call refused: max_tool_calls (1) reached for this invocation; "
            "no more tools can run, answer with what you have"
        }
    ]
    assert events[-1].text == "done"
