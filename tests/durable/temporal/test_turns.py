"""Turns on Temporal, worker in this process: the same events and records as in-process."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest
from temporalio.client import Client

from steadyflow import FunctionTool, LlmAgent
from steadyflow.durable.temporal import TemporalRunner, TemporalSettings
from steadyflow.sessions.invocations import InvocationStatus
from steadyflow.testing import ScriptedLlm, call
from tests.durable.temporal.conftest import APP, Worker

pytestmark = [pytest.mark.temporal, pytest.mark.postgres]


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
