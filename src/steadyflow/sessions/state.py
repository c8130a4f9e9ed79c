"""State scopes: which keys belong to the session, the app, the user, or nobody.

``app:`` keys are shared by every session of the app, ``user:`` keys by every
session of one user of the app, ``temp:`` keys live only for the current
invocation and are never stored. Other keys belong to the session.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["APP_PREFIX", "TEMP_PREFIX", "USER_PREFIX", "ScopedDelta", "split_delta"]

APP_PREFIX = "app:"
USER_PREFIX = "user:"
TEMP_PREFIX = "temp:"


@dataclass
class ScopedDelta:
    """A state delta sorted by scope; app/user keys keep their prefix."""

    session: dict[str, Any] = field(default_factory=lambda: {})
    app: dict[str, Any] = field(default_factory=lambda: {})
    user: dict[str, Any] = field(default_factory=lambda: {})
    temp: dict[str, Any] = field(default_factory=lambda: {})

    def persisted(self) -> dict[str, Any]:
        """Every key that is stored (all but ``temp:``)."""
        return {**self.session, **self.app, **self.user}


def split_delta(delta: dict[str, Any]) -> ScopedDelta:
    """Sort a state delta's keys into their scopes."""
    scoped = ScopedDelta()
    for key, value in delta.items():
        if key.startswith(APP_PREFIX):
            scoped.app[key] = value
        elif key.startswith(USER_PREFIX):
            scoped.user[key] = value
        elif key.startswith(TEMP_PREFIX):
            scoped.temp[key] = value
        else:
            scoped.session[key] = value
    return scoped
