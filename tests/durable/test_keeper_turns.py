"""The record keeper's writes take turns when the store's writes may suspend, and only then."""

from __future__ import annotations

import asyncio

from steadyflow import Event
from steadyflow.context import LlmCallBudget
from steadyflow.durable import LeaseRenewer, RecordKeeper
from steadyflow.sessions import InMemorySessionService, InvocationRecord

from .records import running_record


class GatedRecords(InMemorySessionService):
    """Record writes wait at a gate: a write on a store with I/O, held open by the test."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.writes: list[str] = []

    async def update_invocation(self, record: InvocationRecord) -> None:
        self.entered.set()
        await self.release.wait()
        self.writes.append("renewal")
        await super().update_invocation(record)

    async def append_event_and_record(self, session, event, record):
        self.writes.append("event")
        return await super().append_event_and_record(session, event, record)


class DeclaredInstant(InMemorySessionService):
    """A subclass that overrides nothing and says its writes still never suspend."""

    writes_may_suspend = False


async def started(service: InMemorySessionService):
    session = await service.create_session(app_name="app", user_id="u")
    record = running_record(session.id, 1000.0)
    renewer = LeaseRenewer(10.0)
    keeper = RecordKeeper(service, record, LlmCallBudget(5), 30.0, renewer)
    await keeper.start(session, Event(author="user"))
    return session, keeper, renewer


def test_only_the_in_memory_store_itself_declares_writes_that_never_suspend():
    assert InMemorySessionService.writes_may_suspend is False
    assert GatedRecords.writes_may_suspend is True  # an override may await
    assert DeclaredInstant.writes_may_suspend is False


async def test_an_event_waits_for_a_renewal_whose_write_is_under_way():
    service = GatedRecords()
    session, keeper, renewer = await started(service)
    service.writes.clear()
    renewal = asyncio.create_task(keeper.renew())
    await service.entered.wait()
    append = asyncio.create_task(keeper.append(session, Event(author="a")))
    for _ in range(5):
        await asyncio.sleep(0)
    assert not append.done() and service.writes == []  # the event waits its turn
    service.release.set()
    assert await renewal is True
    stored = await append
    assert service.writes == ["renewal", "event"]
    loaded = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert loaded is not None and [e.id for e in loaded.events][-1] == stored.id
    record = await service.get_invocation(
        app_name="app", user_id="u", session_id=session.id, invocation_id="e-1"
    )
    assert record is not None and record.revision == keeper.record.revision == 3
    await renewer.stop()
