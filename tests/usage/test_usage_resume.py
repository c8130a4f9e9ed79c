"""Usage spans a crash: a resumed invocation counts from what it had used."""

from __future__ import annotations

import pytest

from steadyflow import LlmAgent, RunConfig, Runner
from steadyflow.errors import UsageLimitExceededError
from steadyflow.testing import ScriptedLlm
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
