"""``InMemorySessionService``: sessions in a dict, for tests, scripts and demos.

Copies handed out share their (immutable) events with the store, so loading
a long session costs one list copy, not a deep copy of the history.
Invocation records live in their own dict per session, handed out as copies.
What an append changes (events, revision, update time) is kept as plain
attributes beside a ``Session`` that holds the session's identity, so an
append writes no pydantic field of the store's own (the caller's copy is
updated through pydantic as before).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any, ClassVar, overload

from ..errors import CorruptRecordError, SessionError, StaleInvocationError, StaleSessionError
from ..events import Event
from .base import BaseSessionService, Session, apply_event_locally
from .invocations import InvocationRecord, UnfinishedInvocations, check_record
from .state import split_delta

__all__ = ["InMemorySessionService"]


@dataclass(eq=False, slots=True)
class _Stored:
    """One stored session: ``identity`` (id, app, user; copied on load) and what appends change.

    ``app_state`` and ``user_state`` are the store's dicts of the session's
    app and user, shared with its other sessions (made once, never replaced).
    """

    identity: Session
    state: dict[str, Any]
    app_state: dict[str, Any]
    user_state: dict[str, Any]
    updated: float
    revision: int = 0
    events: list[Event] = field(default_factory=lambda: [])
    event_ids: set[str] = field(default_factory=lambda: set[str]())
    records: dict[str, InvocationRecord] = field(default_factory=lambda: {})


class InMemorySessionService(BaseSessionService):
    """Sessions held in this process's memory; lost when it exits.

    Its writes never suspend (``writes_may_suspend`` is False). A subclass
    may override them with ones that do, so it counts as suspending unless
    its own class body says otherwise.
    """

    writes_may_suspend: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "writes_may_suspend" not in cls.__dict__:
            cls.writes_may_suspend = True

    def __init__(self) -> None:
        self._sessions: dict[tuple[str, str, str], _Stored] = {}
        self._app_state: dict[str, dict[str, Any]] = {}
        self._user_state: dict[tuple[str, str], dict[str, Any]] = {}

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        """Create a session; an existing ``session_id`` is an error."""
        sid = session_id or uuid.uuid4().hex
        key = (app_name, user_id, sid)
        if key in self._sessions:
            raise SessionError(f"session {sid!r} already exists for app {app_name!r}")
        scoped = split_delta(state or {})
        app_state = self._app_state.setdefault(app_name, {})
        app_state.update(scoped.app)
        user_state = self._user_state.setdefault((app_name, user_id), {})
        user_state.update(scoped.user)
        identity = Session(id=sid, app_name=app_name, user_id=user_id)
        stored = _Stored(identity, scoped.session, app_state, user_state, time.time())
        self._sessions[key] = stored
        return self._copy(stored)

    async def get_session(self, *, app_name: str, user_id: str, session_id: str) -> Session | None:
        """Load a session with its events, or None when there is none."""
        stored = self._sessions.get((app_name, user_id, session_id))
        return None if stored is None else self._copy(stored)

    async def list_sessions(self, *, app_name: str, user_id: str | None = None) -> list[Session]:
        """The app's sessions (of one user when given), without their events."""
        return [
            self._copy(s, with_events=False)
            for (app, user, _), s in self._sessions.items()
            if app == app_name and (user_id is None or user == user_id)
        ]

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        """Delete a session, its events and its records (no error when absent)."""
        self._sessions.pop((app_name, user_id, session_id), None)

    async def append_event(self, session: Session, event: Event) -> Event:
        """Store ``event`` and apply its state delta, then update ``session``."""
        return self._commit(session, event, None)

    async def create_invocation(self, record: InvocationRecord) -> None:
        """Store a new invocation record and set its ``revision`` to 1."""
        self._commit(None, None, record)

    async def update_invocation(self, record: InvocationRecord) -> None:
        """Store ``record`` if the stored one is at ``record.revision``; bump it."""
        self._commit(None, None, record)

    async def append_event_and_record(
        self, session: Session, event: Event, record: InvocationRecord
    ) -> Event:
        """``append_event`` and a write of ``record``, both or neither."""
        return self._commit(session, event, record)

    @overload
    def _commit(self, session: Session, event: Event, record: InvocationRecord | None) -> Event: ...

    @overload
    def _commit(self, session: None, event: None, record: InvocationRecord) -> None: ...

    def _commit(
        self, session: Session | None, event: Event | None, record: InvocationRecord | None
    ) -> Event | None:
        """Every write: an event (on ``session``), a record, or both; all checks before any change.

        A record may be written when it is new and its id free, or when it
        is at the stored revision. One function for all four writes: a
        turn's writes (three to six) each cost one call here, not three.
        """
        records: dict[str, InvocationRecord] = {}
        if record is not None:
            owner = self._sessions.get((record.app_name, record.user_id, record.session_id))
            if owner is None:
                raise SessionError(f"session {record.session_id!r} does not exist")
            records = owner.records
            stored_record = records.get(record.id)
            if record.revision == 0:
                if stored_record is not None:
                    raise SessionError(f"invocation {record.id!r} already exists")
            elif stored_record is None or stored_record.revision != record.revision:
                raise StaleInvocationError(record.id, record.revision)
        if session is not None and event is not None and not event.partial:
            stored = self._sessions.get((session.app_name, session.user_id, session.id))
            if stored is None:
                raise SessionError(f"session {session.id!r} was deleted; cannot append to it")
            event_id = event.id  # each read of a pydantic field costs: read once
            if event_id not in stored.event_ids:  # the same event twice is stored once
                if stored.revision != session.revision:
                    raise StaleSessionError(session.id, session.revision, stored.revision)
                event = apply_event_locally(session, event)  # bumps the copy's revision
                if event.actions.state_delta:
                    self._store_delta(stored, event.actions.state_delta)
                stored.events.append(event)
                stored.revision += 1
                stored.updated = event.timestamp
                stored.event_ids.add(event_id)
        if record is not None:
            record.revision += 1
            records[record.id] = record.copy()
        return event

    def _records(self, app_name: str, user_id: str, session_id: str) -> dict[str, InvocationRecord]:
        stored = self._sessions.get((app_name, user_id, session_id))
        return {} if stored is None else stored.records

    async def get_invocation(
        self, *, app_name: str, user_id: str, session_id: str, invocation_id: str
    ) -> InvocationRecord | None:
        """One invocation record of a session, or None when there is none."""
        stored = self._records(app_name, user_id, session_id).get(invocation_id)
        return None if stored is None else check_record(stored.copy())

    async def list_invocations(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> list[InvocationRecord]:
        """A session's invocation records, oldest first."""
        records = self._records(app_name, user_id, session_id).values()
        return [check_record(r.copy()) for r in sorted(records, key=lambda r: r.started_at)]

    async def find_unfinished_invocations(self, *, app_name: str) -> UnfinishedInvocations:
        """The app's unfinished invocations across its sessions, oldest first; bad ones apart."""
        found: list[InvocationRecord] = []
        corrupt: list[CorruptRecordError] = []
        for (app, _, _), stored in self._sessions.items():
            if app != app_name:
                continue
            for record in stored.records.values():
                try:
                    checked = check_record(record.copy())
                except CorruptRecordError as error:
                    corrupt.append(error)
                    continue
                if not checked.status.is_final:
                    found.append(checked)
        return UnfinishedInvocations(sorted(found, key=lambda r: (r.started_at, r.id)), corrupt)

    def _store_delta(self, stored: _Stored, delta: dict[str, Any]) -> None:
        scoped = split_delta(delta)
        stored.state.update(scoped.session)
        stored.app_state.update(scoped.app)
        stored.user_state.update(scoped.user)

    def _copy(self, stored: _Stored, *, with_events: bool = True) -> Session:
        """The caller's copy: its own state (the session's, app's and user's keys) and events.

        ``model_copy`` of the identity validates nothing (a constructor would
        check every event again: twice the cost for a 200-event session).
        """
        update = {
            "state": {**stored.state, **stored.app_state, **stored.user_state},
            "events": list(stored.events) if with_events else [],
            "revision": stored.revision,
            "last_update_time": stored.updated,
        }
        return stored.identity.model_copy(update=update)
