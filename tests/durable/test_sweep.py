"""Sweeping an app's expired invocations: every session's, never a live one, never a waiting one."""

from __future__ import annotations

import socket
import time

from steadyflow import LlmAgent, Runner
from steadyflow.durable import SweepResult, current_owner, resume_expired
from steadyflow.sessions import BaseSessionService, InvocationOwner, InvocationStatus
from steadyflow.testing import ScriptedLlm
from tests.durable.test_resume import Crash, as_if_killed


async def finished_turn(service, app: str, user: str) -> tuple[str, str]:
    """A session with one completed turn; returns (session id, invocation id)."""
    runner = Runner(
        app_name=app, agent=LlmAgent(name="a", model=ScriptedLlm(["hi"])), session_service=service
    )
    session = await runner.create_session(user_id=user)
    events = [
        e async for e in runner.run_async(user_id=user, session_id=session.id, new_message="x")
    ]
    return session.id, events[0].invocation_id


async def set_record(service, app: str, user: str, session_id: str, **fields) -> None:
    (record,) = await service.list_invocations(app_name=app, user_id=user, session_id=session_id)
    for name, value in fields.items():
        setattr(record, name, value)
    await service.update_invocation(record)


async def crashed_turn(service, user: str) -> tuple[Runner, str]:
    """A session whose turn died during its model call (owner gone); the model then says hello."""
    model = ScriptedLlm([Crash(), "hello"])
    runner = Runner(app_name="app", agent=LlmAgent(name="a", model=model), session_service=service)
    session = await runner.create_session(user_id=user)
    try:
        [e async for e in runner.run_async(user_id=user, session_id=session.id, new_message="go")]
    except Crash:
        pass
    return runner, session.id


async def landscape(service: BaseSessionService) -> dict[str, str]:
    """One invocation in each state the sweep tells apart, in several sessions and users."""
    runner, crashed = await crashed_turn(service, "u")
    await as_if_killed(runner, crashed)
    ids = {"crashed": crashed}
    now = time.time()
    ids["expired"], _ = await finished_turn(service, "app", "v")
    elsewhere = InvocationOwner("another-host", 1, 0.0)
    await set_record(
        service,
        "app",
        "v",
        ids["expired"],
        status=InvocationStatus.RUNNING,
        owner=elsewhere,
        lease_expires_at=now - 1.0,
    )
    ids["live"], _ = await finished_turn(service, "app", "v")
    await set_record(
        service,
        "app",
        "v",
        ids["live"],
        status=InvocationStatus.RUNNING,
        owner=current_owner(),
        lease_expires_at=now + 3600.0,
    )
    ids["waiting"], _ = await finished_turn(service, "app", "w")
    await set_record(service, "app", "w", ids["waiting"], status=InvocationStatus.WAITING)
    ids["done"], _ = await finished_turn(service, "app", "w")
    other, _ = await finished_turn(service, "other-app", "u")
    await set_record(service, "other-app", "u", other, status=InvocationStatus.INTERRUPTED)
    return ids


async def test_unfinished_invocations_are_listed_across_sessions_of_one_app(service):
    ids = await landscape(service)
    found = await service.list_unfinished_invocations(app_name="app")
    by_session = {r.session_id: r.status for r in found}
    assert by_session == {
        ids["crashed"]: InvocationStatus.RUNNING,
        ids["expired"]: InvocationStatus.RUNNING,
        ids["live"]: InvocationStatus.RUNNING,
        ids["waiting"]: InvocationStatus.WAITING,
    }
    assert [r.started_at for r in found] == sorted(r.started_at for r in found)
    # The base class's walk over sessions agrees with the store's own query.
    walked = await BaseSessionService.list_unfinished_invocations(service, app_name="app")
    assert [r.id for r in walked] == [r.id for r in found]
    (other,) = await service.list_unfinished_invocations(app_name="other-app")
    assert other.status is InvocationStatus.INTERRUPTED


async def test_the_sweep_resumes_the_expired_and_leaves_the_live_and_the_waiting(service):
    ids = await landscape(service)
    model = ScriptedLlm(["hello"])
    runner = Runner(app_name="app", agent=LlmAgent(name="a", model=model), session_service=service)
    outcomes = [o async for o in resume_expired(runner)]

    results = {o.record.session_id: (o.result, o.detail) for o in outcomes}
    assert results == {
        ids["crashed"]: (SweepResult.RESUMED, "completed"),
        ids["expired"]: (SweepResult.RESUMED, "completed"),
        ids["live"]: (SweepResult.LIVE, f"held by {current_owner()}"),
        ids["waiting"]: (SweepResult.WAITING, ""),
    }
    assert len(model.requests) == 1  # the crashed turn's model call, made again
    session = await service.get_session(app_name="app", user_id="u", session_id=ids["crashed"])
    assert [e.text for e in session.events] == ["go", "hello"]
    (live,) = await service.list_invocations(app_name="app", user_id="v", session_id=ids["live"])
    assert (live.status, live.resume_count) == (InvocationStatus.RUNNING, 0)
    line = next(o for o in outcomes if o.result is SweepResult.LIVE).line()
    assert line.endswith(
        f"session {ids['live']} (user v) live: held by {socket.gethostname()}:{current_owner().pid}"
    )


async def test_a_resume_that_fails_is_reported_and_the_sweep_goes_on(service):
    ids = await landscape(service)
    model = ScriptedLlm([RuntimeError("provider down")])
    runner = Runner(app_name="app", agent=LlmAgent(name="a", model=model), session_service=service)
    outcomes = {o.record.session_id: o async for o in resume_expired(runner)}

    failed = outcomes[ids["crashed"]]
    assert (failed.result, failed.detail) == (SweepResult.FAILED, "RuntimeError: provider down")
    assert outcomes[ids["expired"]].result is SweepResult.RESUMED
