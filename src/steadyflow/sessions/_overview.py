"""What a session list shows of each session besides its id: how it began, how it stands.

``steadyflow sessions list`` and the server's session listings (the viewer)
show the first user message and the status of the last invocation, read
the same way here.
"""

from __future__ import annotations

from .base import BaseSessionService, Session

__all__ = ["overview"]


async def overview(service: BaseSessionService, listed: Session) -> tuple[str | None, str | None]:
    """``(first user message, last invocation's status)`` of a listed session (None: none)."""
    session = await service.get_session(
        app_name=listed.app_name, user_id=listed.user_id, session_id=listed.id
    )
    events = session.events if session is not None else []
    first = next((e.text for e in events if e.author == "user" and e.text), None)
    records = await service.list_invocations(
        app_name=listed.app_name, user_id=listed.user_id, session_id=listed.id
    )
    return first, records[-1].status.value if records else None
