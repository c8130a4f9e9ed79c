"""The session database a command works on: open it, check it answers, find sessions.

Every command takes ``--session-db URL`` (default ``sqlite:///.steadyflow/
sessions.db``, or ``$STEADYFLOW_SESSION_DB``). A database that cannot be
reached is reported before anything runs. Sessions are stored under an app
and a user; commands that take only a session id find its app and user
themselves on SQL stores (ids are random, so one id names one session).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager

from .._redact import redact_url
from ..sessions import (
    DEFAULT_SESSION_URL,
    BaseSessionService,
    InvocationRecord,
    Session,
    open_session_service,
)
from ._errors import CliError, user_errors

__all__ = [
    "DEFAULT_USER",
    "SESSION_DB_ENV",
    "default_session_db",
    "find_session",
    "list_apps",
    "open_store",
    "session_records",
    "shown_url",
]

SESSION_DB_ENV = "STEADYFLOW_SESSION_DB"
DEFAULT_USER = "user"
_PROBE_TIMEOUT = 15.0


def default_session_db() -> str:
    """``$STEADYFLOW_SESSION_DB``, else ``sqlite:///.steadyflow/sessions.db``."""
    return os.environ.get(SESSION_DB_ENV) or DEFAULT_SESSION_URL


def shown_url(url: str) -> str:
    """``url`` with its credentials masked, for messages (``redact_url``)."""
    return redact_url(url)


@asynccontextmanager
async def open_store(url: str) -> AsyncGenerator[BaseSessionService, None]:
    """The store at ``url``, checked to answer; closed on exit.

    Raises:
        CliError: a URL steadyflow cannot use, a missing extra, or a database
            that does not answer.
    """
    with user_errors():
        try:
            service = open_session_service(url)
        except ImportError as error:
            raise CliError(f"session database {shown_url(url)}: {error}") from error
    try:
        try:
            await asyncio.wait_for(service.list_sessions(app_name=""), _PROBE_TIMEOUT)
        except Exception as error:
            raise CliError(
                f"cannot open the session database {shown_url(url)} "
                f"({type(error).__name__}: {' '.join(str(error).split())[:300]}); "
                "check the URL or pass --session-db"
            ) from error
        yield service
    finally:
        await service.close()


async def _matches(service: BaseSessionService, session_id: str) -> list[tuple[str, str, str]]:
    """``(id, app, user)`` of the sessions ``session_id`` names (SQL stores only).

    The id itself when stored, else every id it is a prefix of (as the
    viewer shows ids: ``892e05ed04a8…``; a trailing ellipsis is ignored).
    """
    from sqlalchemy import text  # the SQL store is the only one that can be searched

    engine = getattr(service, "engine", None)
    if engine is None:
        return []
    columns = "SELECT id, app_name, user_id FROM steadyflow_sessions"
    exact = text(f"{columns} WHERE id = :id")
    prefix = text(f"{columns} WHERE id LIKE :prefix ESCAPE '!' ORDER BY id")
    escaped = session_id.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%"
    async with engine.connect() as conn:
        rows = (await conn.execute(exact, {"id": session_id})).all()
        if not rows:
            rows = (await conn.execute(prefix, {"prefix": escaped})).all()
    return sorted((str(row[0]), str(row[1]), str(row[2])) for row in rows)


async def list_apps(service: BaseSessionService) -> list[str]:
    """Every app with sessions in a SQL store ([] for stores that cannot be searched)."""
    from sqlalchemy import text

    engine = getattr(service, "engine", None)
    if engine is None:
        return []
    query = text("SELECT DISTINCT app_name FROM steadyflow_sessions ORDER BY app_name")
    async with engine.connect() as conn:
        return [str(row[0]) for row in (await conn.execute(query)).all()]


async def find_session(
    service: BaseSessionService, url: str, session_id: str, app: str | None, user: str | None
) -> Session:
    """Load ``session_id`` (or the one session whose id it starts) with its events.

    Its app and user are found when not given (SQL stores).

    Raises:
        CliError: no such session, a prefix of several ids, or an id held by
            several apps or users without --app/--user.
    """
    session_id = session_id.strip().rstrip("…")
    found = [
        (i, a, u)
        for i, a, u in await _matches(service, session_id)
        if (app is None or a == app) and (user is None or u == user)
    ]
    if not found and app is not None and user is not None:
        found = [(session_id, app, user)]  # a store that cannot be searched
    ids = sorted({i for i, _, _ in found})
    if len(ids) > 1:
        shown = ", ".join(ids[:5]) + (", ..." if len(ids) > 5 else "")
        raise CliError(f"{session_id!r} starts {len(ids)} session ids ({shown}); give more of it")
    if len(found) > 1:
        listed = ", ".join(f"app {a} / user {u}" for _, a, u in found)
        raise CliError(f"session {session_id!r} exists for {listed}; pass --app and --user")
    session = None
    if found:
        full_id, owner_app, owner_user = found[0]
        session = await service.get_session(
            app_name=owner_app, user_id=owner_user, session_id=full_id
        )
    if session is None:
        raise CliError(
            f"no session {session_id!r} in {shown_url(url)}; "
            "list them with: steadyflow sessions list"
        )
    return session


async def session_records(service: BaseSessionService, session: Session) -> list[InvocationRecord]:
    """The invocation records of ``session``, oldest first."""
    return await service.list_invocations(
        app_name=session.app_name, user_id=session.user_id, session_id=session.id
    )
