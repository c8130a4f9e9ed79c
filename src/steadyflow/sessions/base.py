"""``Session`` and ``BaseSessionService``: the contract every session store keeps.

A session's events are the only transcript of a conversation. Stores keep
these promises, proven by one shared test suite run against each of them:

- partial events are never stored; ``temp:`` state is never stored;
- ``append_event`` stores the event and applies its state delta together,
  or raises and stores nothing; the same event id twice is stored once;
- every append bumps ``Session.revision``; appending through a copy whose
  revision is behind the store's raises ``StaleSessionError``;
- each invocation's record (``InvocationRecord``) is stored beside the
  session, not among its events; a record is written only over the revision
  the writer read (``StaleInvocationError`` otherwise), whatever the
  session's revision is meanwhile; deleting a session deletes its records.
"""

from __future__ import annotations

import logging
import time
import uuid
from abc import ABC, abstractmethod
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from ..errors import CorruptRecordError
from ..events import Event
from .invocations import InvocationRecord, UnfinishedInvocations
from .state import split_delta

logger = logging.getLogger("steadyflow.sessions")

__all__ = [
    "BaseSessionService",
    "Session",
    "apply_event_locally",
    "event_as_stored",
]


class Session(BaseModel):
    """One conversation of one user with one app.

    ``state`` is the merged view: the session's own keys plus the app's
    (``app:``) and the user's (``user:``) shared keys.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    app_name: str
    user_id: str
    state: dict[str, Any] = Field(default_factory=dict)
    events: list[Event] = Field(default_factory=lambda: [])
    last_update_time: float = Field(default_factory=time.time)
    revision: int = 0


def event_as_stored(event: Event) -> Event:
    """``event`` as a store keeps it: ``temp:`` keys dropped from its state delta."""
    if not event.actions.state_delta:
        return event
    scoped = split_delta(event.actions.state_delta)
    if not scoped.temp:
        return event
    actions = event.actions.model_copy(update={"state_delta": scoped.persisted()})
    return event.model_copy(update={"actions": actions})


def apply_event_locally(session: Session, event: Event) -> Event:
    """Apply ``event`` to the caller's copy of ``session`` after a store commit.

    Returns the event as stored: ``temp:`` keys are kept in the copy's state
    for the rest of the invocation but dropped from the stored delta.
    """
    if event.actions.state_delta:
        session.state.update(event.actions.state_delta)
        event = event_as_stored(event)
    session.events.append(event)
    session.revision += 1
    session.last_update_time = event.timestamp
    return event


class BaseSessionService(ABC):
    """Creates, loads, lists, deletes sessions and appends events to them.

    Attributes:
        writes_may_suspend: whether a write (an append, a record write) may
            wait on I/O before it returns. True unless a store knows better;
            the record keeper serializes an invocation's writes only when it
            is (a write that never suspends cannot interleave with another).
    """

    writes_may_suspend: ClassVar[bool] = True

    @abstractmethod
    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        """Create a session; an existing ``session_id`` is an error."""

    @abstractmethod
    async def get_session(self, *, app_name: str, user_id: str, session_id: str) -> Session | None:
        """Load a session with its events, or None when there is none."""

    @abstractmethod
    async def list_sessions(self, *, app_name: str, user_id: str | None = None) -> list[Session]:
        """The app's sessions (of one user when given), without their events."""

    @abstractmethod
    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        """Delete a session and its events (no error when absent)."""

    @abstractmethod
    async def append_event(self, session: Session, event: Event) -> Event:
        """Store ``event`` and apply its state delta, then update ``session``.

        Partial events are returned untouched and not stored.
        """

    @abstractmethod
    async def create_invocation(self, record: InvocationRecord) -> None:
        """Store a new invocation record and set its ``revision`` to 1.

        Raises:
            SessionError: its session does not exist, or the id is taken.
        """

    @abstractmethod
    async def update_invocation(self, record: InvocationRecord) -> None:
        """Store ``record`` over the stored one if that is at ``record.revision``; bump it.

        The write is conditional on the record's own revision only, never on
        the session's: it is how a process claims an invocation, and how two
        resumers are kept from both proceeding.

        Raises:
            StaleInvocationError: another writer stored the record since it
                was read (nothing was written).
        """

    async def append_event_and_record(
        self, session: Session, event: Event, record: InvocationRecord
    ) -> Event:
        """``append_event``, then ``record`` stored (created when its revision is 0, else updated).

        The built-in stores do both in one transaction (one durable commit per
        step); this default, for stores that cannot, does them one after the
        other.

        Raises:
            StaleSessionError / StaleInvocationError: a guard refused.
        """
        stored = await self.append_event(session, event)
        if record.revision == 0:
            await self.create_invocation(record)
        else:
            await self.update_invocation(record)
        return stored

    @abstractmethod
    async def get_invocation(
        self, *, app_name: str, user_id: str, session_id: str, invocation_id: str
    ) -> InvocationRecord | None:
        """One invocation record of a session, or None when there is none."""

    @abstractmethod
    async def list_invocations(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> list[InvocationRecord]:
        """A session's invocation records, oldest first ([] when there is no session)."""

    async def list_unfinished_invocations(self, *, app_name: str) -> list[InvocationRecord]:
        """The app's invocations that are not over, across all its sessions, oldest first.

        Not over: ``RUNNING`` (live, or its process died), ``INTERRUPTED``
        and ``WAITING``; what may be resumed is decided from each record's
        owner and lease (``steadyflow resume --all-expired``, ``serve``).
        A record that cannot be read is left out and logged; see
        ``find_unfinished_invocations`` to have them reported.
        """
        found = await self.find_unfinished_invocations(app_name=app_name)
        for error in found.corrupt:
            logger.warning("skipped an unreadable invocation record: %s", error)
        return found.records

    async def find_unfinished_invocations(self, *, app_name: str) -> UnfinishedInvocations:
        """The app's unfinished invocations, and each record that could not be read.

        One corrupt record never hides the others (what the sweep relies
        on). This default walks every session, and a session whose records
        cannot all be read reports its first bad one and lists none of its
        others; the built-in stores use one query and skip only the bad row.
        """
        found: list[InvocationRecord] = []
        corrupt: list[CorruptRecordError] = []
        for session in await self.list_sessions(app_name=app_name):
            try:
                records = await self.list_invocations(
                    app_name=app_name, user_id=session.user_id, session_id=session.id
                )
            except CorruptRecordError as error:
                corrupt.append(error)
                continue
            found.extend(r for r in records if not r.status.is_final)
        return UnfinishedInvocations(sorted(found, key=lambda r: (r.started_at, r.id)), corrupt)

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections; the in-memory store has none."""
