"""The session contract, part 3: invocation records beside the session (every store)."""

from __future__ import annotations

import pytest

from steadyflow.errors import SessionError, StaleInvocationError, StaleSessionError
from steadyflow.events import Event
from steadyflow.sessions import (
    BaseSessionService,
    InvocationOwner,
    InvocationRecord,
    InvocationStatus,
    Session,
)
from steadyflow.trace_record import InvocationTrace, StepTrace
from steadyflow.types import Content

APP = "app"


def record_for(session: Session, invocation_id: str = "e-1", started: float = 10.0):
    return InvocationRecord(
        id=invocation_id,
        app_name=session.app_name,
        user_id=session.user_id,
        session_id=session.id,
        agent="a",
        started_at=started,
        max_llm_calls=5,
        owner=InvocationOwner("host", 42, 1.5),
        lease_expires_at=40.0,
    )


async def records(service: BaseSessionService, session: Session) -> list[InvocationRecord]:
    return await service.list_invocations(
        app_name=APP, user_id=session.user_id, session_id=session.id
    )


async def get(service: BaseSessionService, session: Session, invocation_id: str):
    return await service.get_invocation(
        app_name=APP, user_id=session.user_id, session_id=session.id, invocation_id=invocation_id
    )


async def test_a_created_record_reads_back_whole_and_is_not_an_event(service) -> None:
    session = await service.create_session(app_name=APP, user_id="u")
    record = record_for(session)
    record.journal = {"call-1": {"state": "started"}}
    await service.create_invocation(record)

    assert record.revision == 1
    assert await get(service, session, "e-1") == record
    loaded = await service.get_session(app_name=APP, user_id="u", session_id=session.id)
    assert loaded is not None and loaded.events == [] and loaded.revision == 0


async def test_records_list_oldest_first_and_only_the_sessions_own(service) -> None:
    session = await service.create_session(app_name=APP, user_id="u")
    other = await service.create_session(app_name=APP, user_id="u")
    await service.create_invocation(record_for(session, "e-late", started=20.0))
    await service.create_invocation(record_for(session, "e-early", started=10.0))
    await service.create_invocation(record_for(other, "e-other"))

    assert [r.id for r in await records(service, session)] == ["e-early", "e-late"]
    assert await get(service, session, "e-other") is None


async def test_an_update_stores_status_trace_and_bumps_the_revision(service) -> None:
    session = await service.create_session(app_name=APP, user_id="u")
    record = record_for(session)
    await service.create_invocation(record)
    record.status, record.llm_calls, record.ended_at = InvocationStatus.COMPLETED, 3, 12.5
    record.trace = InvocationTrace(invocation_id="e-1", status="ok", steps=[StepTrace(1, "a", 0.0)])
    await service.update_invocation(record)

    assert record.revision == 2
    stored = await get(service, session, "e-1")
    assert stored == record and stored.trace == record.trace


async def test_an_update_from_a_stale_copy_is_refused_and_stores_nothing(service) -> None:
    session = await service.create_session(app_name=APP, user_id="u")
    first = record_for(session)
    await service.create_invocation(first)
    second = (await get(service, session, "e-1")).copy()
    first.status = InvocationStatus.WAITING
    await service.update_invocation(first)

    second.status = InvocationStatus.FAILED
    with pytest.raises(StaleInvocationError, match="e-1"):
        await service.update_invocation(second)
    assert (await get(service, session, "e-1")).status is InvocationStatus.WAITING


async def test_a_record_write_does_not_depend_on_the_sessions_revision(service) -> None:
    session = await service.create_session(app_name=APP, user_id="u")
    record = record_for(session)
    await service.create_invocation(record)
    writer = await service.get_session(app_name=APP, user_id="u", session_id=session.id)
    await service.append_event(writer, Event(author="other"))  # `session` is now stale

    record.status = InvocationStatus.COMPLETED
    await service.update_invocation(record)
    assert (await get(service, session, "e-1")).status is InvocationStatus.COMPLETED


async def test_creating_a_taken_id_or_for_a_missing_session_is_an_error(service) -> None:
    session = await service.create_session(app_name=APP, user_id="u")
    await service.create_invocation(record_for(session))
    with pytest.raises(SessionError, match="already exists"):
        await service.create_invocation(record_for(session))
    ghost = Session(app_name=APP, user_id="u", id="ghost")
    with pytest.raises(SessionError, match="ghost"):
        await service.create_invocation(record_for(ghost))


async def test_an_event_and_a_record_are_stored_together(service) -> None:
    session = await service.create_session(app_name=APP, user_id="u")
    record = record_for(session)
    event = Event(invocation_id="e-1", author="user", content=Content.from_text("hi"))
    await service.append_event_and_record(session, event, record)

    assert (session.revision, record.revision) == (1, 1)
    loaded = await service.get_session(app_name=APP, user_id="u", session_id=session.id)
    assert [e.text for e in loaded.events] == ["hi"]
    assert await get(service, session, "e-1") == record


async def test_a_stale_session_stores_neither_the_event_nor_the_record(service) -> None:
    session = await service.create_session(app_name=APP, user_id="u")
    writer = await service.get_session(app_name=APP, user_id="u", session_id=session.id)
    await service.append_event(writer, Event(author="other"))
    with pytest.raises(StaleSessionError):
        await service.append_event_and_record(session, Event(author="user"), record_for(session))
    assert await records(service, session) == []


async def test_a_stale_record_stores_neither_the_record_nor_the_event(service) -> None:
    session = await service.create_session(app_name=APP, user_id="u")
    record = record_for(session)
    await service.create_invocation(record)
    stale = record.copy()
    await service.update_invocation(record)
    with pytest.raises(StaleInvocationError):
        await service.append_event_and_record(session, Event(author="a"), stale)
    loaded = await service.get_session(app_name=APP, user_id="u", session_id=session.id)
    assert loaded.events == [] and (await get(service, session, "e-1")).revision == 2


async def test_deleting_a_session_deletes_its_records(service) -> None:
    session = await service.create_session(app_name=APP, user_id="u")
    await service.create_invocation(record_for(session))
    await service.delete_session(app_name=APP, user_id="u", session_id=session.id)
    assert await records(service, session) == []
