"""The commands over the whole store: ``usage`` and ``sessions list|show|delete``."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from ..sessions import DEFAULT_SESSION_URL
from ._app import app, sessions_app
from ._options import AppName, AsJson, SessionDb, SessionId, UserName

__all__: list[str] = []  # registers its commands on the app; exports none


@app.command()
def usage(
    session_db: SessionDb = DEFAULT_SESSION_URL,
    redis: Annotated[
        str | None, typer.Option("--redis", help="Read a Redis spend store instead.")
    ] = None,
    app_name: Annotated[str | None, typer.Option("--app", help="Only this app.")] = None,
    by: Annotated[str, typer.Option("--by", help="Group by app, user, session or model.")] = "user",
    hours: Annotated[float, typer.Option("--hours", help="How far back, in hours.")] = 24.0,
    as_json: AsJson = False,
) -> None:
    """Print spend by app, user, session or model over a window.

    Counts the turns run under a spend limit (RunConfig.spend_limits) only.
    """
    from ._usage import print_usage

    asyncio.run(print_usage(session_db, redis, app_name, by, hours, as_json))


@sessions_app.command("list")
def sessions_list(
    session_db: SessionDb = DEFAULT_SESSION_URL,
    app_name: Annotated[str | None, typer.Option("--app", help="Only this app.")] = None,
    user: Annotated[str | None, typer.Option("--user", help="Only this user.")] = None,
) -> None:
    """List stored sessions, oldest first."""
    from ._sessions import list_sessions

    asyncio.run(list_sessions(session_db, app_name, user))


@sessions_app.command("show")
def sessions_show(
    session_id: SessionId,
    session_db: SessionDb = DEFAULT_SESSION_URL,
    app_name: AppName = None,
    user: UserName = None,
    as_json: AsJson = False,
) -> None:
    """Show a session's transcript, with a summary line per invocation."""
    from ._sessions import show_session

    asyncio.run(show_session(session_db, session_id, app_name, user, as_json))


@sessions_app.command("delete")
def sessions_delete(
    session_id: SessionId,
    session_db: SessionDb = DEFAULT_SESSION_URL,
    app_name: AppName = None,
    user: UserName = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask first.")] = False,
) -> None:
    """Delete a session and its events."""
    from ._sessions import delete_session

    asyncio.run(delete_session(session_db, session_id, app_name, user, yes))
