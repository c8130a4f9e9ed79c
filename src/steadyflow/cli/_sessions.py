"""``steadyflow sessions list|show|delete``: what the session database holds.

``list`` shows every session (of one app or user when asked) with its
event count, last update, the status of its last invocation and its first
user message. A session whose stored rows cannot be read (a hand-edited
or corrupted event or record) is listed as ``unreadable``, named with the
reason on stderr, and the command exits 1; the others are listed as usual.
``show`` prints a session's transcript, with a
one-line summary of each invocation's record after its events; ``delete`` removes one,
asking first on a terminal (``--yes`` skips the question; without a terminal
it is required).
"""

from __future__ import annotations

import datetime
import json
import sys

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..errors import CorruptRecordError, CorruptSessionError, SessionError
from ..events import Event
from ..sessions import BaseSessionService, InvocationRecord, Session
from ..sessions._overview import overview
from ._console import is_plain, make_console
from ._errors import FAILED, CliError
from ._render import shorten
from ._store import find_session, list_apps, open_store, session_records
from ._timeline import summary_line

__all__ = ["delete_session", "list_sessions", "show_session"]


def _when(timestamp: float) -> str:
    moment = datetime.datetime.fromtimestamp(timestamp).astimezone()
    return moment.strftime("%Y-%m-%d %H:%M:%S")


async def _sessions_of(
    service: BaseSessionService, app: str | None, user: str | None
) -> list[Session]:
    if app is not None:
        return await service.list_sessions(app_name=app, user_id=user)
    apps = await list_apps(service)
    if not apps:
        return []
    found: list[Session] = []
    for name in apps:
        found.extend(await service.list_sessions(app_name=name, user_id=user))
    return found


async def list_sessions(url: str, app: str | None, user: str | None) -> None:
    """Print the sessions as a table (newest last)."""
    console = make_console()
    async with open_store(url) as service:
        if app is None and not hasattr(service, "engine"):
            raise CliError("this session store cannot be searched; pass --app")
        sessions = sorted(await _sessions_of(service, app, user), key=lambda s: s.last_update_time)
        unreadable: list[SessionError] = []
        overviews = [await _overview(service, s, unreadable) for s in sessions]
    if not sessions:
        console.print("no sessions" + (f" for app {escape(app)}" if app else ""))
        return
    table = Table(box=None if is_plain(console) else box.SIMPLE_HEAD, pad_edge=False)
    for column in ("session", "app", "user", "events", "updated", "last turn"):
        table.add_column(column, no_wrap=True, justify="right" if column == "events" else "left")
    table.add_column("first message")
    for s, (status, first) in zip(sessions, overviews, strict=True):
        when = _when(s.last_update_time)
        table.add_row(s.id, s.app_name, s.user_id, str(s.revision), when, status, escape(first))
    console.print(table)
    if unreadable:
        errors = make_console(stderr=True)
        for error in unreadable:
            errors.print(f"[bold red]error:[/] {escape(str(error))}", soft_wrap=True)
        count = f"{len(unreadable)} of {len(sessions)} sessions"
        raise CliError(f"{count} could not be read", exit_code=FAILED)


async def _overview(
    service: BaseSessionService, listed: Session, unreadable: list[SessionError]
) -> tuple[str, str]:
    """(last turn's status, first message) for the table; a bad session is noted apart."""
    try:
        first, status = await overview(service, listed)
    except (CorruptSessionError, CorruptRecordError) as error:
        unreadable.append(error)
        return "unreadable", "-"
    return status or "-", shorten(first, 60) if first else "-"


def _record_line(console: Console, record: InvocationRecord) -> None:
    stamp = _when(record.ended_at or record.started_at)[11:]
    summary = record.status.value if record.trace is None else summary_line(record.trace)
    console.print(f"{stamp} [dim]· invocation {record.id}: {summary}[/]")


def _print_event_lines(console: Console, session: Session, records: list[InvocationRecord]) -> None:
    last_index = {event.invocation_id: i for i, event in enumerate(session.events)}
    pending = {r.id: r for r in records}
    for index, event in enumerate(session.events):
        _print_event(console, event)
        if last_index[event.invocation_id] == index and event.invocation_id in pending:
            _record_line(console, pending.pop(event.invocation_id))
    for record in pending.values():  # invocations that stored no event
        _record_line(console, record)


def _print_event(console: Console, event: Event) -> None:
    stamp = _when(event.timestamp)[11:]
    for call in event.get_function_calls():
        console.print(f"{stamp} {escape(event.author)} [cyan]→ {escape(call.name)}[/]", end="")
        console.print(f"({escape(shorten(call.args))})")
    for response in event.get_function_responses():
        result = escape(shorten(response.response))
        name = escape(response.name)
        console.print(f"{stamp} {escape(event.author)} [cyan]← {name}[/] {result}")
    if event.text:
        console.print(f"{stamp} [bold]{escape(event.author)}:[/] {escape(event.text)}")
    if event.error_code:
        console.print(f"{stamp} [red]{escape(event.author)}: {escape(event.error_code)}[/]")


async def show_session(
    url: str, session_id: str, app: str | None, user: str | None, as_json: bool
) -> None:
    """Print one session: its transcript, or the whole session as JSON."""
    async with open_store(url) as service:
        session = await find_session(service, url, session_id, app, user)
        records = await session_records(service, session)
    if as_json:
        sys.stdout.write(session.model_dump_json(indent=2) + "\n")
        return
    console = make_console()
    console.print(
        f"session {session.id} · app {escape(session.app_name)} · user "
        f"{escape(session.user_id)} · {len(session.events)} events · updated "
        f"{_when(session.last_update_time)}"
    )
    if session.state:
        console.print(f"state: {escape(shorten(json.dumps(session.state, default=str), 300))}")
    _print_event_lines(console, session, records)


async def delete_session(
    url: str, session_id: str, app: str | None, user: str | None, yes: bool
) -> None:
    """Delete one session after confirming (see the module docstring)."""
    console = make_console()
    async with open_store(url) as service:
        session = await find_session(service, url, session_id, app, user)
        if not yes:
            if not sys.stdin.isatty():
                raise CliError("refusing to delete without a terminal to ask; pass --yes")
            question = f"delete session {session.id} ({len(session.events)} events)? [y/N] "
            if console.input(question).strip().lower() not in ("y", "yes"):
                console.print("kept")
                return
        await service.delete_session(
            app_name=session.app_name, user_id=session.user_id, session_id=session.id
        )
    console.print(f"deleted session {session.id} ({len(session.events)} events)")
