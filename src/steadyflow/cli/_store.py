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


async def _owners(service: BaseSessionService, session_id: str) -> list[tuple[str, str]]:
    """``(app, user)`` pairs holding ``session_id`` (SQL stores only)."""
    from sqlalchemy import text  # the SQL store is the only one that can be searched

    engine = getattr(service, "engine", None)
    if engine is None:
        return []
    query = text("SELECT app_name, user_id FROM steadyflow_sessions WHERE id = :id")
    async with engine.connect() as conn:
        rows = (await conn.execute(query, {"id": session_id})).all()
    return sorted((str(row[0]), str(row[1])) for row in rows)


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
    """Load ``session_id`` with its events, finding its app and user when not given.

    Raises:
        CliError: no such session, or the id is ambiguous without --app/--user.
    """
    if app is not None and user is not None:
        owners = [(app, user)]
    else:
        owners = [
            (a, u)
            for a, u in await _owners(service, session_id)
            if (app is None or a == app) and (user is None or u == user)
        ]
    if len(owners) > 1:
        listed = ", ".join(f"app {a} / user {u}" for a, u in owners)
        raise CliError(f"session {session_id!r} exists for {listed}; pass --app and --user")
    session = None
    if owners:
        session = await service.get_session(
            app_name=owners[0][0], user_id=owners[0][1], session_id=session_id
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
