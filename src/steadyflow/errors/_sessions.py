"""Errors of the session store, one tree under ``SessionError``.

Missing or stale sessions and invocations, database failures, oversized
events, schema and trace versions, stored rows that cannot be read.
"""

from __future__ import annotations

from ._base import SteadyflowError


class SessionError(SteadyflowError):
    """The session store refused an operation."""


class SessionNotFoundError(SessionError, LookupError):
    """No session with this app, user and id."""

    def __init__(self, app_name: str, user_id: str, session_id: str) -> None:
        self.app_name = app_name
        self.user_id = user_id
        self.session_id = session_id
        super().__init__(
            f"session {session_id!r} not found for app {app_name!r}, user {user_id!r}; "
            "create it first with session_service.create_session(...)"
        )


class StaleSessionError(SessionError):
    """Another writer appended to the session after this copy was loaded.

    Reload the session and retry the turn; nothing of this append was stored.
    """

    def __init__(self, session_id: str, expected_revision: int, actual_revision: int) -> None:
        self.session_id = session_id
        self.expected_revision = expected_revision
        self.actual_revision = actual_revision
        super().__init__(
            f"session {session_id!r} was changed by another writer "
            f"(revision {actual_revision}, this copy has {expected_revision}); "
            "reload the session and retry the turn"
        )


class SessionStoreError(SessionError):
    """The session database could not do what was asked: read-only, full, unreachable.

    The message names the store by its URL with credentials masked and gives
    the database's own reason, never the SQL statement or its parameters
    (they can hold user content); the driver's error is the ``__cause__``.
    The operation stored nothing.

    Attributes:
        url: the store's URL, credentials masked.
    """

    def __init__(self, url: str, action: str, reason: str) -> None:
        self.url = url
        super().__init__(f"session store {url} could not {action}: {reason}")


class EventTooLargeError(SessionError):
    """An event is larger than the session store accepts; nothing of it was stored.

    A model answer or tool result this large would be sent back to the
    model on every later turn, and held in every server's memory.

    Attributes:
        event_id: the refused event.
        size: its size in bytes as stored JSON.
        limit: the store's ``max_event_bytes``.
    """

    def __init__(self, event_id: str, size: int, limit: int) -> None:
        self.event_id = event_id
        self.size = size
        self.limit = limit
        super().__init__(
            f"event {event_id!r} is {size} bytes of JSON, over the session store's "
            f"max_event_bytes ({limit}); nothing of it was stored"
        )


class StaleInvocationError(SessionError):
    """Another writer stored the invocation's record after this copy was read.

    Raised to the second of two processes claiming or advancing the same
    invocation: the other one holds it; nothing of this write was stored.
    """

    def __init__(self, invocation_id: str, expected_revision: int) -> None:
        self.invocation_id = invocation_id
        self.expected_revision = expected_revision
        super().__init__(
            f"invocation {invocation_id!r} was written by another process since this copy "
            f"was read (revision {expected_revision}); it is held or finished elsewhere"
        )


class CorruptSessionError(SessionError):
    """A session's stored events cannot be read (hand-edited, or written by a bug).

    Listing sessions skips such a session and reports it; loading it raises
    this error. Nothing is repaired: the message names the session so an
    operator can look at its rows.

    Attributes:
        app_name / user_id / session_id: the session.
        reason: what is wrong with it.
    """

    def __init__(self, app_name: str, user_id: str, session_id: str, reason: str) -> None:
        self.app_name = app_name
        self.user_id = user_id
        self.session_id = session_id
        self.reason = reason
        super().__init__(
            f"session {session_id!r} (app {app_name!r}, user {user_id!r}) cannot be read: {reason}"
        )


class CorruptRecordError(SessionError):
    """An invocation record cannot be trusted: a column that is not what it must be.

    A journal or usage that is not a JSON object, an unknown status, a
    negative counter: the record is refused, never half-trusted (a resume
    from a negative ``llm_calls`` would spend past ``max_llm_calls``). The
    start-up sweep and ``steadyflow resume --all-expired`` skip it and report
    it; reading it alone raises this error.

    Attributes:
        app_name / user_id / session_id: its session.
        invocation_id: the record.
        reason: what is wrong with it.
    """

    def __init__(
        self, app_name: str, user_id: str, session_id: str, invocation_id: str, reason: str
    ) -> None:
        self.app_name = app_name
        self.user_id = user_id
        self.session_id = session_id
        self.invocation_id = invocation_id
        self.reason = reason
        super().__init__(
            f"invocation record {invocation_id!r} of session {session_id!r} (user {user_id!r}) "
            f"is corrupt: {reason}"
        )


class SchemaVersionError(SessionError):
    """The session database was written by a newer schema than this code knows."""


class TraceFormatError(SessionError, ValueError):
    """A stored trace does not match the schema (written by another version?)."""
