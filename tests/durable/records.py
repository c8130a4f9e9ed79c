"""The record the keeper tests start from: invocation ``e-1`` of agent ``a`` in app ``app``."""

from __future__ import annotations

from steadyflow.durable import start_record
from steadyflow.sessions import InvocationRecord


def running_record(session_id: str, now: float) -> InvocationRecord:
    """A new running record of user ``u``'s session, five calls allowed, a 30 s lease."""
    return start_record(
        invocation_id="e-1",
        app_name="app",
        user_id="u",
        session_id=session_id,
        agent="a",
        max_llm_calls=5,
        now=now,
        lease_seconds=30.0,
    )
