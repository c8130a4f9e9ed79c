"""``InMemorySessionService``: sessions in a dict, for tests, scripts and demos.

Copies handed out share their (immutable) events with the store, so loading
a long session costs one list copy, not a deep copy of the history.
Invocation records live in their own dict per session, handed out as copies.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from ..errors import SessionError, StaleInvocationError, StaleSessionError
from ..events import Event
from .base import (
    BaseSessionService,
    Session,
    apply_event_locally,
    copy_with,
    mark_appended,
)
from .invocations import InvocationRecord
from .state import split_delta

__all__ = ["InMemorySessionService"]


class InMemorySessionService(BaseSessionService):
    """Sessions held in this process's memory; lost when it exits."""

    def __init__(self) -> None:
        self._sessions: dict[tuple[str, str, str], Session] = {}
        self._event_ids: dict[tuple[str, str, str], set[str]] = {}
        self._app_state: dict[str, dict[str, Any]] = {}
        self._user_state: dict[tuple[str, str], dict[str, Any]] = {}
        self._invocations: dict[tuple[str, str, str], dict[str, InvocationRecord]] = {}

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
        self._app_state.setdefault(app_name, {}).update(scoped.app)
        self._user_state.setdefault((app_name, user_id), {}).update(scoped.user)
        stored = Session(
            id=sid,
            app_name=app_name,
            user_id=user_id,
            state=scoped.session,
            last_update_time=time.time(),
        )
        self._sessions[key] = stored
        self._event_ids[key] = set()
        self._invocations[key] = {}
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
        """Delete a session and its events (no error when absent)."""
        self._sessions.pop((app_name, user_id, session_id), None)
        self._event_ids.pop((app_name, user_id, session_id), None)
        self._invocations.pop((app_name, user_id, session_id), None)

    async def append_event(self, session: Session, event: Event) -> Event:
        """Store ``event`` and apply its state delta, then update ``session``."""
        if event.partial:
            return event
        key = (session.app_name, session.user_id, session.id)
        stored = self._sessions.get(key)
        if stored is None:
            raise SessionError(f"session {session.id!r} was deleted; cannot append to it")
        if event.id in self._event_ids[key]:
            return event
        if stored.revision != session.revision:
            raise StaleSessionError(session.id, session.revision, stored.revision)
        event = apply_event_locally(session, event)
        if event.actions.state_delta:
            self._store_delta(stored, event.actions.state_delta)
        stored.events.append(event)
        mark_appended(stored, session.revision, event.timestamp)
        self._event_ids[key].add(event.id)
        return event

    async def create_invocation(self, record: InvocationRecord) -> None:
        """Store a new invocation record and set its ``revision`` to 1."""
        self._put_record(self._checked_records(record), record)

    async def update_invocation(self, record: InvocationRecord) -> None:
        """Store ``record`` if the stored one is at ``record.revision``; bump it."""
        self._put_record(self._checked_records(record), record)

    async def append_event_and_record(
        self, session: Session, event: Event, record: InvocationRecord
    ) -> Event:
        """``append_event`` and a write of ``record``, both or neither."""
        records = self._checked_records(record)
        stored = await self.append_event(session, event)
        self._put_record(records, record)
        return stored

    def _checked_records(self, record: InvocationRecord) -> dict[str, InvocationRecord]:
        """The session's records, unless ``record`` may not be written.

        It may when it is new and its id free, or at the stored revision.
        """
        records = self._records_of(record)
        stored = records.get(record.id)
        if record.revision == 0:
            if stored is not None:
                raise SessionError(f"invocation {record.id!r} already exists")
        elif stored is None or stored.revision != record.revision:
            raise StaleInvocationError(record.id, record.revision)
        return records

    @staticmethod
    def _put_record(records: dict[str, InvocationRecord], record: InvocationRecord) -> None:
        record.revision += 1
        records[record.id] = record.copy()

    async def get_invocation(
        self, *, app_name: str, user_id: str, session_id: str, invocation_id: str
    ) -> InvocationRecord | None:
        """One invocation record of a session, or None when there is none."""
        stored = self._invocations.get((app_name, user_id, session_id), {}).get(invocation_id)
        return None if stored is None else stored.copy()

    async def list_invocations(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> list[InvocationRecord]:
        """A session's invocation records, oldest first."""
        records = self._invocations.get((app_name, user_id, session_id), {}).values()
        return [r.copy() for r in sorted(records, key=lambda r: r.started_at)]

    async def list_unfinished_invocations(self, *, app_name: str) -> list[InvocationRecord]:
        """The app's invocations that are not over, across all its sessions, oldest first."""
        found = [
            r.copy()
            for (app, _, _), records in self._invocations.items()
            if app == app_name
            for r in records.values()
            if not r.status.is_final
        ]
        return sorted(found, key=lambda r: (r.started_at, r.id))

    def _records_of(self, record: InvocationRecord) -> dict[str, InvocationRecord]:
        records = self._invocations.get((record.app_name, record.user_id, record.session_id))
        if records is None:
            raise SessionError(f"session {record.session_id!r} does not exist")
        return records

    def _store_delta(self, stored: Session, delta: dict[str, Any]) -> None:
        scoped = split_delta(delta)
        stored.state.update(scoped.session)
        if scoped.app:
            self._app_state.setdefault(stored.app_name, {}).update(scoped.app)
        if scoped.user:
            self._user_state.setdefault((stored.app_name, stored.user_id), {}).update(scoped.user)

    def _copy(self, stored: Session, *, with_events: bool = True) -> Session:
        state = dict(stored.state)
        for k, v in self._app_state.get(stored.app_name, {}).items():
            state[k] = v
        for k, v in self._user_state.get((stored.app_name, stored.user_id), {}).items():
            state[k] = v
        return copy_with(stored, state, list(stored.events) if with_events else [])
