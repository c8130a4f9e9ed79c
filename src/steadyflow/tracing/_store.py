"""Storing an invocation's trace whatever other writers did to the session meanwhile.

The trace is appended last, after every event of the turn. Another writer
(a second turn on the same session, another process) may have appended in
between; the revision guard then refuses the runner's copy as stale. The
trace carries no state delta and depends on nothing it could overwrite, so
the append is safely repeated on a freshly loaded copy: a finished turn
never loses its record because someone else wrote first. (The durable
invocation record will make this its own row; until then, the event.)
"""

from __future__ import annotations

from ..errors import SessionError, StaleSessionError
from ..events import Event
from ..sessions.base import BaseSessionService, Session

__all__ = ["TRACE_APPEND_ATTEMPTS", "append_trace"]

TRACE_APPEND_ATTEMPTS = 5
"""How many revisions the trace append tries before giving up (each a fresh load)."""


async def append_trace(service: BaseSessionService, session: Session, event: Event) -> None:
    """Append the trace ``event`` to ``session``, reloading it when another writer won.

    Raises:
        StaleSessionError: other writers won ``TRACE_APPEND_ATTEMPTS`` times in a row.
        SessionError: the session was deleted meanwhile, or the store failed.
    """
    target = session
    for attempt in range(1, TRACE_APPEND_ATTEMPTS + 1):
        try:
            await service.append_event(target, event)
            return
        except StaleSessionError:
            if attempt == TRACE_APPEND_ATTEMPTS:
                raise
        fresh = await service.get_session(
            app_name=session.app_name, user_id=session.user_id, session_id=session.id
        )
        if fresh is None:
            raise SessionError(f"session {session.id!r} was deleted; cannot store its trace")
        target = fresh
