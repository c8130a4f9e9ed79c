"""Summary events: how a compaction summary is stored in, and found in, a session.

A summary is an ordinary event authored by the agent it was written for,
marked in ``custom_metadata[SUMMARY_KEY]`` with the id of the last event it
covers. Its content is exactly the message that replaces the covered
events at the front of later requests. Only that agent (on the same
branch) uses it; every agent skips summary events as conversation, so a
summary never shows up as something an agent "said".
"""

from __future__ import annotations

from typing import Any, cast

from ..events import Event
from ..types import Content, Part, UsageMetadata

__all__ = ["SUMMARY_KEY", "SUMMARY_PREFIX", "is_summary_event", "summary_event", "summary_through"]

SUMMARY_KEY = "steadyflow.history_summary"
"""The ``custom_metadata`` key that marks an event as a history summary."""
SUMMARY_PREFIX = "Summary of the earlier conversation (older messages are omitted):\n\n"


def is_summary_event(event: Event) -> bool:
    """True when ``event`` holds a compaction summary."""
    return event.custom_metadata is not None and SUMMARY_KEY in event.custom_metadata


def summary_through(event: Event) -> str | None:
    """Id of the last event the summary covers (None when the marker is malformed)."""
    assert event.custom_metadata is not None
    marker = event.custom_metadata.get(SUMMARY_KEY)
    if not isinstance(marker, dict):
        return None
    through = cast("dict[str, object]", marker).get("through_event_id")
    return through if isinstance(through, str) and through else None


def summary_event(
    *,
    text: str,
    author: str,
    invocation_id: str,
    branch: str | None,
    through_event_id: str,
    events_covered: int,
    model: str,
    usage: UsageMetadata | None,
) -> Event:
    """The event that stores a summary of ``events_covered`` events up to ``through_event_id``."""
    marker: dict[str, Any] = {
        "through_event_id": through_event_id,
        "events_covered": events_covered,
        "model": model,
    }
    return Event(
        invocation_id=invocation_id,
        author=author,
        branch=branch,
        content=Content(role="user", parts=[Part(text=SUMMARY_PREFIX + text.strip())]),
        usage_metadata=usage,
        custom_metadata={SUMMARY_KEY: marker},
    )
