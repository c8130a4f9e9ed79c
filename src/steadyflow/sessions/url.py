"""``open_session_service(url)``: a session store from one string, for ``Runner`` and the CLI.

``memory://`` keeps sessions in this process; ``sqlite:///path`` (relative)
or ``sqlite:////abs/path`` keeps them in a SQLite file, created with its
folder on first use; ``postgresql://user:pw@host/db`` keeps them in
PostgreSQL. The ``+aiosqlite`` / ``+asyncpg`` driver suffixes are optional.
"""

from __future__ import annotations

from .._redact import redact_url
from ..errors import ConfigurationError
from .base import BaseSessionService
from .in_memory import InMemorySessionService

__all__ = ["DEFAULT_SESSION_URL", "open_session_service"]

DEFAULT_SESSION_URL = "sqlite:///.steadyflow/sessions.db"
"""Where the CLI and the demo keep sessions unless told otherwise."""

_SQL_SCHEMES = ("sqlite", "postgresql", "postgres")


def open_session_service(url: str) -> BaseSessionService:
    """The session store ``url`` names.

    Args:
        url: ``memory://``, ``sqlite:///path``, ``sqlite+aiosqlite:///path``,
            ``postgresql://...`` or ``postgresql+asyncpg://...``.

    Raises:
        ConfigurationError: the URL names no store steadyflow has.
        ImportError: a SQL URL without the ``sql`` extra installed.
    """
    shown = redact_url(url) if isinstance(url, str) else url  # errors never show secrets
    if not isinstance(url, str) or "://" not in url:
        raise ConfigurationError(
            f"session_service URL {shown!r} has no scheme; use memory://, sqlite:///path "
            "or postgresql://user@host/db"
        )
    scheme = url.split("://", 1)[0].lower()
    if scheme == "memory":
        if url.lower() != "memory://":
            raise ConfigurationError(f"session_service URL {shown!r}: memory:// takes no path")
        return InMemorySessionService()
    if scheme.split("+", 1)[0] in _SQL_SCHEMES:
        from .sql import SqlSessionService  # imported here: SQLAlchemy is an optional extra

        return SqlSessionService(url)
    raise ConfigurationError(
        f"session_service URL {shown!r}: unknown scheme {scheme!r}; "
        "use memory://, sqlite:///path or postgresql://user@host/db"
    )
