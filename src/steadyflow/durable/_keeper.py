"""``RecordKeeper``: the one object that writes a running invocation's record.

Every write goes through it, so the record in memory and the stored one
move together, one conditional write at a time:

- each stored event is committed together with the record (calls used so
  far, the lease pushed forward): no extra durable write per step;
- before a batch of tool calls runs, one write marks them started; in a
  parallel batch each call's result is written the moment it completes,
  group-committed with the siblings that complete with it (a single call's
  result is stored by the response event that follows at once); the
  response event then drops the entries it answers;
- while the invocation runs, the runner's ``LeaseRenewer`` renews the
  lease when the record has been quiet (a refused renewal means another
  process took the invocation over: it is logged and renewal stops);
- when the invocation ends, the record is closed with its status and trace;
  a turn that ended for good (cancelled, failed) while tools ran first gets
  their calls answered (``_cut_short``), so its session takes a next turn.

It is also the invocation's ``ToolJournal``: on a resume it tells tool
dispatch which calls already have an outcome, and which calls a person
confirmed or declined (``_confirm``). A pause event (confirmation requests)
is stored with the calls it pauses marked ``waiting`` in the same commit,
and the record then closes ``WAITING`` instead of ``COMPLETED``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from .._confirmation import ToolConfirmation
from .._json import is_object
from .._tool_journal import KnownOutcome
from ..context import LlmCallBudget
from ..errors import StaleInvocationError
from ..events import Event
from ..sessions.base import BaseSessionService, Session
from ..sessions.invocations import InvocationRecord, InvocationStatus
from ..trace_record._schema import InvocationTrace
from ..types import FunctionCall
from ..usage._meter import UsageMeter
from ._confirm import ANSWERED, mark_waiting, settle_waiting
from ._cut_short import INTERRUPTED_RESPONSE, answer_cut_short
from ._records import finish_record
from ._renewer import LeaseRenewer

__all__ = ["DONE", "INTERRUPTED_RESPONSE", "STARTED", "RecordKeeper"]

logger = logging.getLogger("steadyflow.durable")

STARTED, DONE = "started", "done"
"""Journal states of a call: running (or cut short by a crash), finished with its result."""


def _over(record: InvocationRecord, error: BaseException | None) -> bool:
    """Whether a closed turn is over for good: cancelled, or failed by an error.

    ``INTERRUPTED`` is resumed, and a ``BaseException`` that is neither an
    error nor a cancellation is taken for the process going down.
    """
    status = record.status
    return status is InvocationStatus.CANCELLED or (
        status is InvocationStatus.FAILED and isinstance(error, Exception)
    )


class RecordKeeper:
    """Writes one invocation's record; see the module docstring.

    Args:
        service: the session store.
        record: the record (new, revision 0, or claimed by a resume).
        budget: the invocation's call budget (its count is stored with each write).
        usage: the invocation's usage meter (its totals are stored with each write).
        lease_seconds: how far each write pushes the lease.
        renewer: keeps the lease while the record is quiet (the runner's).
        clock: wall-clock seconds (injectable for tests).

    Writes take a lock one at a time (a renewal or a parallel result may be
    under way) when the store's writes may suspend; a store whose writes
    never do (``writes_may_suspend`` False: the in-memory one) needs none, as
    no write can start while another is under way. The per-event paths
    (``append``, ``begin``, ``close``) call ``acquire`` and ``release`` rather
    than ``async with``: 1.1k instructions against 5.8k per write
    (callgrind), two or five writes a turn.
    """

    def __init__(
        self,
        service: BaseSessionService,
        record: InvocationRecord,
        budget: LlmCallBudget,
        lease_seconds: float,
        renewer: LeaseRenewer,
        clock: Callable[[], float] = time.time,
        usage: UsageMeter | None = None,
    ) -> None:
        self.service, self.record, self.budget = service, record, budget
        self.usage = usage
        self._lease, self._renewer, self._clock = lease_seconds, renewer, clock
        self._lock = asyncio.Lock() if service.writes_may_suspend else None
        self.written_at = 0.0
        self._waiting = False  # a pause event was stored: the record closes WAITING
        self._unwritten: set[str] = set()  # journaled results not yet stored

    def start_renewal(self) -> None:
        """Have the runner's renewer keep the lease until ``close``."""
        self.written_at = self._clock()
        self._renewer.add(self)

    async def renew(self) -> bool:
        """Push the lease forward; False once another process has taken the invocation."""
        async with self._turn():
            try:
                await self._write()
            except StaleInvocationError:
                logger.warning(
                    "invocation %s was taken over by another process; lease not renewed",
                    self.record.id,
                )
                return False
            except Exception as error:  # the next renewal tries again
                logger.warning(
                    "could not renew the lease of invocation %s: %s: %s",
                    self.record.id,
                    type(error).__name__,
                    error,
                )
            return True

    def _turn(self) -> contextlib.AbstractAsyncContextManager[None]:
        """The lock, as ``async with`` takes it (no lock: nothing to wait for)."""
        return self._lock if self._lock is not None else contextlib.nullcontext()

    def _refresh(self) -> None:
        self.written_at = now = self._clock()
        record = self.record
        record.llm_calls = self.budget.count
        if self.usage is not None:
            record.usage = self.usage.stored
        record.lease_expires_at = now + self._lease

    async def start(self, session: Session, user_event: Event | None) -> None:
        """Store the new record, with the user's message in the same commit when there is one."""
        self._refresh()
        if user_event is None:
            await self.service.create_invocation(self.record)
        else:
            await self.service.append_event_and_record(session, user_event, self.record)
        self._renewer.add(self)  # ``_refresh`` set ``written_at``

    async def append(self, session: Session, event: Event) -> Event:
        """Store ``event`` and the record in one commit; returns the event as stored."""
        lock = self._lock
        if lock is not None:
            await lock.acquire()  # see the class docstring
        try:
            journal = self.record.journal
            if journal:  # most turns journal nothing: no response to look up
                for response in event.get_function_responses():
                    journal.pop(response.id or "", None)
            # A pause event lists its requests as long-running; most events have none.
            if event.long_running_tool_ids and mark_waiting(journal, event):
                self._waiting = True
            self._refresh()
            return await self.service.append_event_and_record(session, event, self.record)
        finally:
            if lock is not None:
                lock.release()

    async def _write(self) -> None:
        self._refresh()
        await self.service.update_invocation(self.record)

    async def begin(self, calls: list[FunctionCall]) -> None:
        """Mark the calls that have no entry yet (or only an answer) as started (one write)."""
        lock = self._lock
        if lock is not None:
            await lock.acquire()  # see the class docstring
        try:
            journal = self.record.journal
            fresh = False
            for call in calls:
                call_id = call.id
                if call_id and (
                    call_id not in journal or journal[call_id].get("state") == ANSWERED
                ):
                    # an answered call keeps its answer while it runs
                    journal[call_id] = {**journal.get(call_id, {}), "state": STARTED}
                    fresh = True
            if fresh:
                await self._write()
        finally:
            if lock is not None:
                lock.release()

    def known(self, call: FunctionCall, *, idempotent: bool) -> KnownOutcome | None:
        """A finished call's stored result; an interrupted response for one cut short."""
        entry = self.record.journal.get(call.id or "")
        if entry is None:
            return None
        if entry.get("state") == DONE:
            return KnownOutcome(dict(entry["response"]), dict(entry.get("state_delta") or {}))
        if entry.get("resumed") and not idempotent:
            return KnownOutcome(dict(INTERRUPTED_RESPONSE), {})
        return None  # started in this run (a sibling), answered, or idempotent: run it

    def confirmation(self, call: FunctionCall) -> ToolConfirmation | None:
        """A person's answer to ``call``'s confirmation request, None when it had none."""
        entry = self.record.journal.get(call.id or "")
        if entry is None or "answer" not in entry:  # most entries hold none
            return None
        answer = entry["answer"]
        if not is_object(answer):
            return None
        return ToolConfirmation(
            bool(answer.get("confirmed")), answer.get("payload"), str(entry.get("hint") or "")
        )

    async def finished(
        self,
        call: FunctionCall,
        response: dict[str, Any],
        state_delta: dict[str, Any],
        *,
        batch_size: int,
    ) -> None:
        """Journal a parallel call's result at once (a single call's goes with its event).

        Group commit: results of siblings that complete in the same turn of
        the event loop, or while an earlier write is under way, are stored
        by one write; each call returns only once its result is stored.
        """
        if batch_size <= 1 or not call.id:
            return
        self.record.journal[call.id] = {
            "state": DONE,
            "response": response,
            "state_delta": state_delta,
        }
        self._unwritten.add(call.id)
        await asyncio.sleep(0)  # let siblings finishing now join this write
        async with self._turn():
            if call.id not in self._unwritten:
                return  # a sibling's write stored it
            flushed, self._unwritten = self._unwritten, set()
            try:
                await self._write()
            except BaseException:
                self._unwritten |= flushed
                raise

    def mark_resumed(self) -> None:
        """Entries still ``started`` were cut short by the crash (not by this run)."""
        for entry in self.record.journal.values():
            if entry.get("state") == STARTED:
                entry["resumed"] = True

    async def close(
        self, trace: InvocationTrace, error: BaseException | None, session: Session | None = None
    ) -> None:
        """Close the record (status, calls, trace); a refused write only logs.

        With ``session``, calls a cancelled or failed turn left running are
        answered in the same commits (see ``_cut_short``).
        """
        self._renewer.discard(self)
        lock = self._lock
        if lock is not None:
            await lock.acquire()  # see the class docstring
        try:
            record = self.record
            if self.usage is not None:
                record.usage = self.usage.stored
            finish_record(
                record, trace=trace, error=error, llm_calls=self.budget.count, now=self._clock()
            )
            if self._waiting:
                settle_waiting(record, error)
            try:
                if session is not None and record.journal and _over(record, error):
                    answers = answer_cut_short(session.events, record)
                    for answer in answers:  # each with the record, so the record's is last
                        await self.service.append_event_and_record(session, answer, record)
                    if answers:
                        return
                await self.service.update_invocation(record)
            except Exception as store_error:
                logger.warning(
                    "could not store the record of invocation %s: %s: %s",
                    record.id,
                    type(store_error).__name__,
                    store_error,
                )
        finally:
            if lock is not None:
                lock.release()
