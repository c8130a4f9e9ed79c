"""The lease: renewed while an invocation runs, never renewed over another owner's claim."""

from __future__ import annotations

import asyncio

from steadyflow.context import LlmCallBudget
from steadyflow.durable import LeaseRenewer, RecordKeeper, start_record
from steadyflow.sessions import InvocationStatus
from steadyflow.trace_record import InvocationTrace

from .records import running_record


class Ticks:
    """A sleep that waits until the test lets one renewal through, and a settable clock."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.asked: list[float] = []
        self._go = asyncio.Queue[None]()

    async def sleep(self, seconds: float) -> None:
        self.asked.append(seconds)
        await self._go.get()

    def clock(self) -> float:
        return self.now

    async def tick(self, keeper: RecordKeeper, renewer: LeaseRenewer, seconds: float) -> None:
        """Let one renewal run, and wait until it wrote (or gave up)."""
        self.now += seconds
        before = keeper.record.revision
        renewal = renewer.task()
        assert renewal is not None
        self._go.put_nowait(None)
        while keeper.record.revision == before and not renewal.done():  # noqa: ASYNC110
            await asyncio.sleep(0)


async def keeper_for(service, ticks: Ticks) -> tuple[RecordKeeper, LeaseRenewer]:
    session = await service.create_session(app_name="app", user_id="u")
    record = running_record(session.id, ticks.now)
    renewer = LeaseRenewer(10.0, ticks.clock, ticks.sleep)
    keeper = RecordKeeper(service, record, LlmCallBudget(5), 30.0, renewer, ticks.clock)
    await keeper.start(session, None)
    return keeper, renewer


async def stored(service, keeper: RecordKeeper):
    record = keeper.record
    return await service.get_invocation(
        app_name="app", user_id="u", session_id=record.session_id, invocation_id=record.id
    )


async def test_the_lease_is_renewed_every_third_of_its_length(service):
    ticks = Ticks()
    keeper, renewer = await keeper_for(service, ticks)
    assert (await stored(service, keeper)).lease_expires_at == 1030.0
    await ticks.tick(keeper, renewer, 10.0)
    assert ticks.asked[0] == 10.0
    assert (await stored(service, keeper)).lease_expires_at == 1040.0
    await keeper.close(InvocationTrace(invocation_id="e-1", status="ok"), None)
    closed = await stored(service, keeper)
    assert (closed.status, closed.lease_expires_at) == (InvocationStatus.COMPLETED, None)


async def test_a_lease_taken_over_is_not_renewed_over_the_new_owner(service, caplog):
    ticks = Ticks()
    keeper, renewer = await keeper_for(service, ticks)
    other = (await stored(service, keeper)).copy()
    other.lease_expires_at = 5000.0  # another process claimed it
    await service.update_invocation(other)
    await ticks.tick(keeper, renewer, 10.0)
    assert (await stored(service, keeper)).lease_expires_at == 5000.0
    assert "taken over" in caplog.text
    await keeper.close(InvocationTrace(invocation_id="e-1", status="ok"), None)
    assert (await stored(service, keeper)).status is InvocationStatus.RUNNING  # not ours to close


async def test_one_renewal_task_writes_only_for_invocations_quiet_for_half_its_interval(service):
    ticks = Ticks()
    quiet, renewer = await keeper_for(service, ticks)
    session = await service.create_session(app_name="app", user_id="u")
    busy_record = start_record(
        invocation_id="e-2",
        app_name="app",
        user_id="u",
        session_id=session.id,
        agent="a",
        max_llm_calls=5,
        now=ticks.now,
        lease_seconds=30.0,
    )
    busy = RecordKeeper(service, busy_record, LlmCallBudget(5), 30.0, renewer, ticks.clock)
    await busy.start(session, None)
    task = renewer.task()
    ticks.now += 8.0
    await busy.renew()  # a stored event 2 s before the wake
    written = busy.record.revision
    await ticks.tick(quiet, renewer, 2.0)
    assert renewer.task() is task
    assert (await stored(service, quiet)).lease_expires_at == 1040.0
    assert busy.record.revision == written  # its own write pushed the lease: no extra one
    await renewer.stop()
    assert task.done()
