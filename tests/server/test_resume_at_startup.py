"""``create_app(resume_expired=True)``: crashed turns resume in the background at start-up."""

from __future__ import annotations

import asyncio
import logging
import socket

from steadyflow import LlmAgent
from steadyflow.events import Event
from steadyflow.server import create_app
from steadyflow.sessions import InMemorySessionService, InvocationOwner, InvocationRecord
from steadyflow.testing import ScriptedLlm
from steadyflow.types import Content
from tests.durable.test_resume import dead_pid
from tests.server.harness import APP, USER, running


async def crashed(service: InMemorySessionService) -> str:
    """A session as a killed process leaves it: the user's message, a running record."""
    session = await service.create_session(app_name=APP, user_id=USER)
    record = InvocationRecord(
        id="e-crashed",
        app_name=APP,
        user_id=USER,
        session_id=session.id,
        agent=APP,
        owner=InvocationOwner(socket.gethostname(), dead_pid(), 0.0),
        lease_expires_at=9e18,
    )
    message = Event(invocation_id=record.id, author="user", content=Content.from_text("hi"))
    await service.append_event_and_record(session, message, record)
    return session.id


def gated_agent(gate: asyncio.Event, entered: asyncio.Event) -> LlmAgent:
    async def hold(callback_context, llm_request):
        entered.set()
        await gate.wait()

    return LlmAgent(name=APP, model=ScriptedLlm(["resumed"]), before_model_callback=hold)


async def test_the_server_answers_while_a_crashed_turn_resumes_at_start_up(caplog):
    caplog.set_level(logging.INFO, logger="steadyflow.durable")
    service = InMemorySessionService()
    session_id = await crashed(service)
    gate, entered = asyncio.Event(), asyncio.Event()
    app = create_app(gated_agent(gate, entered), service, resume_expired=True)
    async with running(app) as http:
        await entered.wait()  # the resumed turn is in its model call
        assert (await http.get("/health")).status_code == 200
        gate.set()
        await app.state.resume_sweep
    session = await service.get_session(app_name=APP, user_id=USER, session_id=session_id)
    assert [e.text for e in session.events] == ["hi", "resumed"]
    (record,) = await service.list_invocations(app_name=APP, user_id=USER, session_id=session_id)
    assert (record.status.value, record.resume_count) == ("completed", 1)
    assert f"start-up resume: e-crashed session {session_id} (user {USER}) resumed: completed" in (
        caplog.messages
    )


async def test_resuming_at_start_up_is_off_unless_asked():
    service = InMemorySessionService()
    session_id = await crashed(service)
    app = create_app(LlmAgent(name=APP, model=ScriptedLlm([])), service)
    async with running(app) as http:
        assert (await http.get("/health")).status_code == 200
        assert app.state.resume_sweep is None
    (record,) = await service.list_invocations(app_name=APP, user_id=USER, session_id=session_id)
    assert (record.status.value, record.resume_count) == ("running", 0)


async def test_a_resume_cut_short_by_the_server_stopping_is_left_resumable():
    service = InMemorySessionService()
    session_id = await crashed(service)
    gate, entered = asyncio.Event(), asyncio.Event()
    app = create_app(gated_agent(gate, entered), service, resume_expired=True)
    async with running(app):
        await entered.wait()  # the resumed turn is in its model call; the server stops now
    (record,) = await service.list_invocations(app_name=APP, user_id=USER, session_id=session_id)
    assert (record.status.value, record.resume_count) == ("interrupted", 1)
    # The next server to start continues it.
    again = create_app(
        LlmAgent(name=APP, model=ScriptedLlm(["resumed"])), service, resume_expired=True
    )
    async with running(again) as http:
        assert (await http.get("/health")).status_code == 200  # started up
        await again.state.resume_sweep
    (record,) = await service.list_invocations(app_name=APP, user_id=USER, session_id=session_id)
    assert (record.status.value, record.resume_count) == ("completed", 2)
