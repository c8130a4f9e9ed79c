"""Turn tasks: the registry, and session writes that a cancellation cannot cut in half."""

from __future__ import annotations

import asyncio

import pytest

from steadyflow import Event, InMemorySessionService
from steadyflow.server import TurnRegistry
from steadyflow.server._turns import WriteThroughService
from steadyflow.sessions import Session
from tests.server.harness import Gate


class SlowStore(InMemorySessionService):
    """Appends wait at a gate before storing."""

    def __init__(self, gate: Gate) -> None:
        super().__init__()
        self.gate = gate

    async def append_event(self, session: Session, event: Event) -> Event:
        self.gate.entered.set()
        await self.gate.release.wait()
        return await super().append_event(session, event)


async def test_a_cancelled_turn_finishes_the_append_it_started():
    gate = Gate()
    inner = SlowStore(gate)
    store = WriteThroughService(inner)
    session = await store.create_session(app_name="a", user_id="u")
    append = asyncio.create_task(store.append_event(session, Event(author="user")))
    await gate.entered.wait()
    append.cancel()
    await asyncio.sleep(0)  # let the cancellation arrive (no wall-clock wait)
    assert not append.done()
    gate.release.set()
    with pytest.raises(asyncio.CancelledError):
        await append
    stored = await inner.get_session(app_name="a", user_id="u", session_id=session.id)
    assert stored is not None and stored.revision == 1
    assert session.revision == 1  # the caller's copy matches the store


async def test_the_wrapper_delegates_every_operation():
    inner = InMemorySessionService()
    store = WriteThroughService(inner)
    session = await store.create_session(app_name="a", user_id="u", session_id="s")
    await store.append_event(session, Event(author="user"))
    assert [s.id for s in await store.list_sessions(app_name="a")] == ["s"]
    loaded = await store.get_session(app_name="a", user_id="u", session_id="s")
    assert loaded is not None and loaded.revision == 1
    await store.delete_session(app_name="a", user_id="u", session_id="s")
    assert await inner.get_session(app_name="a", user_id="u", session_id="s") is None


async def test_the_registry_counts_running_turns_and_cancels_them_all():
    registry = TurnRegistry()
    gate = Gate()
    task = registry.start(gate.hold())
    await gate.entered.wait()
    assert registry.active == 1
    await registry.cancel_all()
    assert task.cancelled() and gate.cancelled.is_set()
    assert registry.active == 0


async def test_wait_idle_returns_when_the_last_turn_ends():
    registry = TurnRegistry()
    gate = Gate()
    registry.start(gate.hold())
    waiter = asyncio.create_task(registry.wait_idle())
    await gate.entered.wait()
    assert not waiter.done()
    gate.release.set()
    await asyncio.wait_for(waiter, 5)
    assert registry.active == 0
