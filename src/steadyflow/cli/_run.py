"""``steadyflow run AGENT [QUERY]``: talk to an agent, or ask it one thing and exit.

Sessions are stored in the session database (``--session-db``), under the
app named after the root agent (``--app``) and the user ``user``
(``--user``); ``--resume ID`` continues one. The turns run with the agent
file's ``run_config`` if it has one, else with retries on (3 attempts) and
a budget of 500 attempts; each flag given overrides its field (``_settings``).
Progress is shown live. A turn that waits for a person's confirmation asks
in chat mode and prints the ``steadyflow confirm`` command in one-shot mode
(``_confirm``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from rich.console import Console

from ..run_config import RunConfig
from ..runner import Runner
from ..sessions import BaseSessionService
from ..tools import ConfirmationRequest
from ..types import Content
from ._confirm import answer_commands, ask, show_waiting
from ._console import make_console
from ._emulator import provider_emulator
from ._errors import CliError
from ._live import LiveReporter
from ._next import activation
from ._render import EventPrinter
from ._settings import RunFlags, run_config_for
from ._store import find_session, open_store, shown_url
from ._turn import play_turn, prepare_agent

__all__ = ["RunOptions", "run_command"]

_EXIT_WORDS = ("exit", "quit", ":q")


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """Everything ``steadyflow run`` was told."""

    agent: str
    query: str | None
    model: str | None
    flags: RunFlags
    session_db: str
    resume: str | None
    jsonl: bool
    app: str | None
    user: str
    emulator: bool = False
    emulator_faults: tuple[str, ...] = ()
    check: bool = True


def run_command(options: RunOptions) -> None:
    """Run the command; raises ``CliError`` for bad input and failed one-shot turns."""
    with provider_emulator(options.emulator, options.emulator_faults):
        asyncio.run(_run(options))


@dataclass(frozen=True)
class _Chat:
    """What every turn of one ``run`` shares."""

    runner: Runner
    session_id: str
    options: RunOptions
    config: RunConfig
    printer: EventPrinter

    async def turn(self, message: str | Content) -> list[ConfirmationRequest]:
        events = self.runner.run_async(
            user_id=self.options.user,
            session_id=self.session_id,
            new_message=message,
            run_config=self.config,
        )
        user, session_id = self.options.user, self.session_id
        outcome = await play_turn(self.runner, user, session_id, events, self.printer)
        return outcome.requests


async def _run(options: RunOptions) -> None:
    console = make_console(stderr=options.jsonl)
    reporter = None if options.jsonl else LiveReporter(console)
    root, settings = prepare_agent(
        options.agent,
        model=options.model,
        check=options.check,
        emulator=options.emulator,
        reporter=reporter,
    )
    config = run_config_for(settings, options.flags)
    async with open_store(options.session_db) as service:
        runner = Runner(app_name=options.app or root.name, agent=root, session_service=service)
        session_id = await _session_id(runner, service, options)
        printer = EventPrinter(console, jsonl=options.jsonl, reporter=reporter)
        chat = _Chat(runner, session_id, options, config, printer)
        if options.query is not None:
            requests = await chat.turn(options.query)
            if requests:
                show_waiting(console, requests, _answer_commands(options, session_id))
        else:
            await _interactive(chat)
        if options.jsonl:
            console.print(f"session {session_id} in {shown_url(options.session_db)}")


def _answer_commands(options: RunOptions, session_id: str) -> tuple[str, str] | None:
    command = activation()[1]
    url = options.session_db
    return answer_commands(command, options.agent, session_id, url, emulator=options.emulator)


async def _session_id(runner: Runner, service: BaseSessionService, options: RunOptions) -> str:
    if options.resume is None:
        return (await runner.create_session(user_id=options.user)).id
    session = await find_session(
        service, options.session_db, options.resume, runner.app_name, options.user
    )
    return session.id


async def _interactive(chat: _Chat) -> None:
    console = chat.printer.console
    console.print(f"[dim]session {chat.session_id} · type exit or press Ctrl-D to leave[/]")
    while True:
        try:
            line = console.input("[bold]you>[/] ")
        except (EOFError, KeyboardInterrupt):
            console.print()
            return
        if line.strip().lower() in _EXIT_WORDS:
            return
        if not line.strip():
            continue
        try:
            requests = await chat.turn(line)
            if requests and not await _confirm_in_chat(chat, console, requests):
                return
        except CliError as error:
            console.print(f"[red]error:[/] {error}")


async def _confirm_in_chat(
    chat: _Chat, console: Console, requests: list[ConfirmationRequest]
) -> bool:
    """Ask until the turn waits no more; False when the person left (Ctrl-D)."""
    while requests:
        answer = ask(console, requests)
        if answer is None:
            show_waiting(console, [], _answer_commands(chat.options, chat.session_id))
            return False
        requests = await chat.turn(answer)
    return True
