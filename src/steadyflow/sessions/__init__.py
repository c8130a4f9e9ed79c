"""Session stores. Public because users plug in their own store."""

from .base import BaseSessionService, Session, apply_event_locally
from .in_memory import InMemorySessionService

__all__ = ["BaseSessionService", "InMemorySessionService", "Session", "apply_event_locally"]
