"""The commands on one stored session: ``trace``, ``invocations``, ``resume``, ``dump-request``."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from ..sessions import DEFAULT_SESSION_URL
from ._app import app
from ._options import AgentSpec, AppName, AsJson, SessionDb, SessionId, UserName

__all__: list[str] = []  # registers its commands on the app; exports none


@app.command(short_help="A session's timeline: steps, attempts, waits, tools.")
def trace(
    session_id: SessionId,
    invocation: Annotated[
        str | None, typer.Option(help="Only this invocation (a prefix of its id is enough).")
    ] = None,
    session_db: SessionDb = DEFAULT_SESSION_URL,
    app_name: AppName = None,
    user: UserName = None,
    as_json: AsJson = False,
) -> None:
    """The timeline of a session's invocations: steps, attempts, waits, tools, tokens."""
    from ._trace import trace_command

    asyncio.run(trace_command(session_db, session_id, invocation, app_name, user, as_json))


@app.command(short_help="A session's invocations: status, attempts, owner.")
def invocations(
    session_id: SessionId,
    session_db: SessionDb = DEFAULT_SESSION_URL,
    app_name: AppName = None,
    user: UserName = None,
    as_json: AsJson = False,
) -> None:
    """A session's invocations: status, attempts used, resumes, owner and lease, error."""
    from ._invocations import invocations_command

    asyncio.run(invocations_command(session_db, session_id, app_name, user, as_json))


@app.command(short_help="Continue a crashed invocation, replaying nothing.")
def resume(
    agent: AgentSpec,
    session_id: Annotated[
        str | None,
        typer.Argument(help="The session's id (omit with --all-expired).", show_default=False),
    ] = None,
    all_expired: Annotated[
        bool,
        typer.Option(
            "--all-expired",
            help="Resume every invocation of the app whose lease expired or whose owner is "
            "gone, in every session (for cron or a supervisor); exit 1 if one failed.",
        ),
    ] = False,
    session_db: SessionDb = DEFAULT_SESSION_URL,
    app_name: AppName = None,
    user: UserName = None,
) -> None:
    """Continue a session's crashed invocation: nothing committed is done again."""
    from ._resume import resume_all_command, resume_command

    if all_expired:
        asyncio.run(resume_all_command(agent, session_id, session_db, app_name, user))
    else:
        asyncio.run(resume_command(agent, session_id, session_db, app_name, user))


@app.command("dump-request", short_help="The LlmRequest JSON the next step would send.")
def dump_request(
    agent: AgentSpec,
    session: Annotated[str, typer.Option(help="The session to rebuild the request from.")],
    message: Annotated[
        str | None, typer.Option(help="Add this user message first (not stored).")
    ] = None,
    model: Annotated[str | None, typer.Option(help="Model for every agent.")] = None,
    session_db: SessionDb = DEFAULT_SESSION_URL,
    app_name: AppName = None,
    user: UserName = None,
) -> None:
    """Print the exact LlmRequest JSON the next step would send (when "the model forgot")."""
    from ._dump import dump_request as dump

    asyncio.run(dump(agent, session, session_db, app_name, user, model, message))
