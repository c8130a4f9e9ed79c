"""Session stores. Public because users plug in their own store.

``SqlSessionService`` (SQLite, PostgreSQL) needs the ``sql`` extra and is
imported on first use, so the in-memory store works without SQLAlchemy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import BaseSessionService, Session, apply_event_locally, event_as_stored
from .in_memory import InMemorySessionService
from .invocations import (
    InvocationOwner,
    InvocationRecord,
    InvocationStatus,
    UnfinishedInvocations,
)
from .url import DEFAULT_SESSION_URL, open_session_service

if TYPE_CHECKING:
    from .sql import SqlSessionService

__all__ = [
    "DEFAULT_SESSION_URL",
    "BaseSessionService",
    "InMemorySessionService",
    "InvocationOwner",
    "InvocationRecord",
    "InvocationStatus",
    "Session",
    "SqlSessionService",
    "UnfinishedInvocations",
    "apply_event_locally",
    "event_as_stored",
    "open_session_service",
]


def __getattr__(name: str) -> Any:
    if name == "SqlSessionService":
        from .sql import SqlSessionService

        return SqlSessionService
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
