"""``SessionKey``: the three columns that name one session's rows in every table.

Every table of the SQL store is keyed by the session's app, user and id
(``sessions.id``, ``session_id`` elsewhere); queries, the cache and the
invocation records pass the three together as one named value.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["SessionKey"]


class SessionKey(NamedTuple):
    """One session's key columns, in primary-key order."""

    app_name: str
    user_id: str
    session_id: str
