"""Every invocation keeps a record: running while it runs, closed with its trace at the end."""

from __future__ import annotations

import os

import pytest

from steadyflow import LlmAgent, Runner
from steadyflow.errors import ConfigurationError
from steadyflow.sessions import InvocationStatus
from steadyflow.testing import ScriptedLlm, http_error


def runner_for(service, model) -> Runner:
    return Runner(app_name="app", agent=LlmAgent(name="a", model=model), session_service=service)


async def test_a_record_is_running_with_this_process_as_owner_until_the_turn_ends(service):
    runner = runner_for(service, ScriptedLlm(["one"]))
    session = await runner.create_session(user_id="u")
    events = runner.run_async(user_id="u", session_id=session.id, new_message="1")
    answer = await anext(events)
    record = await service.get_invocation(
        app_name="app", user_id="u", session_id=session.id, invocation_id=answer.invocation_id
    )
    assert record.status is InvocationStatus.RUNNING and record.ended_at is None
    assert record.owner is not None and record.owner.pid == os.getpid()
    assert record.lease_expires_at == pytest.approx(record.started_at + 30.0)
    assert [e async for e in events] == []
    (closed,) = await service.list_invocations(app_name="app", user_id="u", session_id=session.id)
    assert (closed.status, closed.llm_calls, closed.lease_expires_at) == (
        InvocationStatus.COMPLETED,
        1,
        None,
    )


async def test_a_finished_turn_keeps_its_trace_when_another_turn_appended_meanwhile(service):
    runner = runner_for(service, ScriptedLlm(["one", "two"]))
    session = await runner.create_session(user_id="u")
    first = runner.run_async(user_id="u", session_id=session.id, new_message="1")
    answer = await anext(first)  # the first turn's copy of the session falls behind now
    others = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="2")
    ]
    assert [e async for e in first] == []
    records = await service.list_invocations(app_name="app", user_id="u", session_id=session.id)
    assert {r.id for r in records} == {answer.invocation_id, others[0].invocation_id}
    assert all(r.status is InvocationStatus.COMPLETED and r.trace is not None for r in records)


async def test_a_failed_turn_records_its_error(service):
    runner = runner_for(service, ScriptedLlm([http_error(500)]))
    session = await runner.create_session(user_id="u")
    with pytest.raises(Exception, match="500"):
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="1"):
            pass
    (record,) = await service.list_invocations(app_name="app", user_id="u", session_id=session.id)
    assert (record.status, record.error_type) == (InvocationStatus.FAILED, "ModelHTTPError")
    assert record.trace is not None and record.trace.status == "error"


def test_a_lease_that_is_not_positive_is_refused():
    with pytest.raises(ConfigurationError, match="lease_seconds"):
        Runner(
            app_name="a",
            agent=LlmAgent(name="a", model="m"),
            session_service="memory://",
            lease_seconds=0,
        )


async def test_a_turn_cancelled_because_its_process_stops_is_interrupted_not_cancelled(service):
    import asyncio

    from steadyflow.durable import SHUTTING_DOWN

    entered = asyncio.Event()

    async def hold(callback_context, llm_request):
        entered.set()
        await asyncio.Event().wait()

    statuses = []
    for message in (None, SHUTTING_DOWN):
        agent = LlmAgent(name="a", model=ScriptedLlm(["never"]), before_model_callback=hold)
        runner = Runner(app_name="app", agent=agent, session_service=service)
        session = await runner.create_session(user_id="u")
        events = runner.run_async(user_id="u", session_id=session.id, new_message="1")
        turn = asyncio.ensure_future(anext(events, None))
        entered.clear()
        await entered.wait()  # the user's message and the record are stored
        turn.cancel(message)
        await asyncio.gather(turn, return_exceptions=True)
        await events.aclose()
        (record,) = await service.list_invocations(
            app_name="app", user_id="u", session_id=session.id
        )
        statuses.append(record.status)
    assert statuses == [InvocationStatus.CANCELLED, InvocationStatus.INTERRUPTED]
