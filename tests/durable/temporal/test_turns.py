"""Turns on Temporal, worker in this process: the same events and records as in-process."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest
from temporalio.client import Client

from steadyflow import (
    FunctionTool,
    LlmAgent,
    LlmCallsLimitExceededError,
    RetryConfig,
    RunConfig,
    Runner,
)
from steadyflow.durable.temporal import TemporalRunner, TemporalSettings
from steadyflow.errors import ConfigurationError, InvocationFailedError, NothingToResumeError
from steadyflow.retry import CircuitBreaker
from steadyflow.sessions.invocations import InvocationStatus
from steadyflow.testing import ScriptedLlm, call, http_error
from tests.durable.temporal.conftest import APP, Worker

pytestmark = [pytest.mark.temporal, pytest.mark.postgres]


def lookup(order: str) -> dict[str, str]:
    return {"ok": order}


@pytest.fixture
async def runners(
    postgres_url: str, temporal_client: Client, settings: TemporalSettings
) -> AsyncIterator[Callable[[LlmAgent], TemporalRunner]]:
    made: list[TemporalRunner] = []

    def make(agent: LlmAgent) -> TemporalRunner:
        runner = TemporalRunner(
            app_name=APP,
            agent=agent,
            session_service=postgres_url,
            client=temporal_client,
            settings=settings,
        )
        made.append(runner)
        return runner

    yield make
    for runner in made:
        await runner.close()


async def test_a_text_turn_stores_the_user_event_and_the_answer_once(
    postgres_url: str, runners: Callable[[LlmAgent], TemporalRunner], worker: Worker
) -> None:
    model = ScriptedLlm(["hello there"])
    agent = LlmAgent(name="helper", model=model)
    runner = runners(agent)
    session = await runner.create_session(user_id="u")
    async with worker(agent, postgres_url):
        events = [
            e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="hi")
        ]
    assert [e.content.parts[0].text for e in events if e.content] == ["hello there"]
    stored = await runner.session_service.get_session(
        app_name=APP, user_id="u", session_id=session.id
    )
    assert stored is not None
    assert [(e.author, e.content.parts[0].text) for e in stored.events if e.content] == [
        ("user", "hi"),
        ("helper", "hello there"),
    ]
    records = await runner.session_service.list_invocations(
        app_name=APP, user_id="u", session_id=session.id
    )
    assert [(r.status, r.llm_calls, r.id) for r in records] == [
        (InvocationStatus.COMPLETED, 1, events[0].invocation_id)
    ]
    assert records[0].trace is not None and len(records[0].trace.steps) == 1
    assert model.calls == 1


async def test_a_tool_turn_runs_the_tool_once_and_answers(
    postgres_url: str, runners: Callable[[LlmAgent], TemporalRunner], worker: Worker
) -> None:
    ran: list[str] = []

    def lookup(order: str) -> dict[str, str]:
        ran.append(order)
        return {"status": "shipped"}

    model = ScriptedLlm([call("lookup", {"order": "A1"}), "it shipped"])
    agent = LlmAgent(name="helper", model=model, tools=[FunctionTool(lookup)])
    runner = runners(agent)
    session = await runner.create_session(user_id="u")
    async with worker(agent, postgres_url):
        events = [
            e
            async for e in runner.run_async(
                user_id="u", session_id=session.id, new_message="where?"
            )
        ]
    assert ran == ["A1"]
    responses = [r.response for e in events for r in e.get_function_responses()]
    assert responses == [{"status": "shipped"}]
    assert events[-1].content is not None and events[-1].content.parts[0].text == "it shipped"
    stored = await runner.session_service.get_session(
        app_name=APP, user_id="u", session_id=session.id
    )
    assert stored is not None and [e.id for e in stored.events][1:] == [e.id for e in events]


async def test_a_transient_error_is_retried_by_steadyflow_inside_the_activity(
    postgres_url: str, runners: Callable[[LlmAgent], TemporalRunner], worker: Worker
) -> None:
    model = ScriptedLlm([http_error(503), "fine now"])
    agent = LlmAgent(name="helper", model=model)
    runner = runners(agent)
    session = await runner.create_session(user_id="u")
    config = RunConfig(retry_config=RetryConfig(max_attempts=2, initial_backoff=0.0))
    async with worker(agent, postgres_url):
        events = [
            e
            async for e in runner.run_async(
                user_id="u", session_id=session.id, new_message="hi", run_config=config
            )
        ]
    assert [e.text for e in events] == ["fine now"]
    (record,) = await runner.session_service.list_invocations(
        app_name=APP, user_id="u", session_id=session.id
    )
    assert record.llm_calls == 2 and model.calls == 2
    assert record.trace is not None and len(record.trace.steps[0].attempts) == 2


async def test_a_provider_error_fails_the_invocation_and_temporal_never_retries_it(
    postgres_url: str, runners: Callable[[LlmAgent], TemporalRunner], worker: Worker
) -> None:
    model = ScriptedLlm([http_error(400, "bad request"), "never"])
    agent = LlmAgent(name="helper", model=model)
    runner = runners(agent)
    session = await runner.create_session(user_id="u")
    async with worker(agent, postgres_url):
        with pytest.raises(InvocationFailedError) as raised:
            async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="hi"):
                pass
    assert raised.value.error_type == "ModelHTTPError"
    assert model.calls == 1  # one attempt: no second retry layer
    (record,) = await runner.session_service.list_invocations(
        app_name=APP, user_id="u", session_id=session.id
    )
    assert (record.status, record.error_type) == (InvocationStatus.FAILED, "ModelHTTPError")


async def test_the_call_budget_is_raised_as_itself(
    postgres_url: str, runners: Callable[[LlmAgent], TemporalRunner], worker: Worker
) -> None:
    model = ScriptedLlm([call("lookup", {"order": "A1"}), "never"])
    agent = LlmAgent(name="helper", model=model, tools=[FunctionTool(lookup)])
    runner = runners(agent)
    session = await runner.create_session(user_id="u")
    async with worker(agent, postgres_url):
        with pytest.raises(LlmCallsLimitExceededError) as raised:
            async for _ in runner.run_async(
                user_id="u",
                session_id=session.id,
                new_message="hi",
                run_config=RunConfig(max_llm_calls=1),
            ):
                pass
    assert raised.value.limit == 1 and model.calls == 1


async def test_a_shared_retry_object_is_refused_by_the_runner(
    runners: Callable[[LlmAgent], TemporalRunner],
) -> None:
    runner = runners(LlmAgent(name="helper", model=ScriptedLlm([])))
    session = await runner.create_session(user_id="u")
    config = RunConfig(retry_config=RetryConfig(circuit_breaker=CircuitBreaker()))
    with pytest.raises(ConfigurationError, match="circuit_breaker"):
        await runner.start(user_id="u", session_id=session.id, new_message="hi", run_config=config)


async def test_an_interrupted_in_process_invocation_is_resumed_on_the_fleet(
    postgres_url: str, runners: Callable[[LlmAgent], TemporalRunner], worker: Worker
) -> None:
    crashed = LlmAgent(name="helper", model=ScriptedLlm([SystemExit(1)]))
    local = Runner(app_name=APP, agent=crashed, session_service=postgres_url)
    session = await local.create_session(user_id="u")
    with pytest.raises(SystemExit):
        async for _ in local.run_async(user_id="u", session_id=session.id, new_message="hi"):
            pass
    await local.close()
    model = ScriptedLlm(["resumed answer"])
    agent = LlmAgent(name="helper", model=model)
    runner = runners(agent)
    async with worker(agent, postgres_url):
        events = [e async for e in runner.resume_async(user_id="u", session_id=session.id)]
    assert [e.text for e in events] == ["resumed answer"]
    stored = await runner.session_service.get_session(
        app_name=APP, user_id="u", session_id=session.id
    )
    assert stored is not None
    assert [e.author for e in stored.events] == ["user", "helper"]  # the message stored once
    (record,) = await runner.session_service.list_invocations(
        app_name=APP, user_id="u", session_id=session.id
    )
    assert (record.status, record.resume_count) == (InvocationStatus.COMPLETED, 1)
    # the interrupted attempt, one for the call in flight (as in-process resume counts), the new one
    assert record.llm_calls == 3
    with pytest.raises(NothingToResumeError):
        async for _ in runner.resume_async(user_id="u", session_id=session.id):
            pass
