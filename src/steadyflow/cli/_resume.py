"""``resume`` and ``confirm``: continue a stored invocation, from another process.

``steadyflow resume AGENT SESSION_ID`` continues a session's crashed
invocation with ``Runner.resume_async``: nothing committed is done again.
Nothing to resume (finished, held by a live process, waiting for a person)
or another process resuming first is a one-line error.

``steadyflow confirm AGENT SESSION_ID`` answers the confirmation requests
the session's waiting invocation holds (``_confirm``) and runs the rest of
its turn.

Both load the agent the way ``run`` does (its file's ``run_config``,
``--model``, the model check, ``--emulator``), keep the budget and usage
limits the invocation started with unless a flag says otherwise
(``_settings``), and print what ``run`` prints: the attempts live, the
events, the summary line, and any confirmation the turn waits on.

``steadyflow resume AGENT --all-expired`` (from cron or a supervisor)
resumes every invocation of the app (``--app``, default the agent's name)
whose lease expired or whose same-host owner is gone, in every session
(``steadyflow.durable.resume_expired``). It prints one line per unfinished
invocation it found (resumed, failed, taken by another process, live,
waiting, corrupt: a record that cannot be read, skipped) and exits 1 when
one of the resumes failed or a record was corrupt.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from rich.markup import escape

from ..durable import SweepResult, resume_expired
from ..runner import Runner
from ..sessions import InvocationRecord, InvocationStatus
from ..tools import ConfirmationRequest
from ._confirm import Answer, answer_commands, pending_requests, show_waiting
from ._console import make_console
from ._emulator import provider_emulator
from ._errors import FAILED, CliError
from ._live import LiveReporter
from ._loader import load_agent
from ._next import activation
from ._render import EventPrinter
from ._settings import RunFlags, run_config_for
from ._store import find_session, open_store, session_records
from ._turn import play_turn, prepare_agent

__all__ = ["ContinueOptions", "confirm_command", "resume_all_command", "resume_command"]


@dataclass(frozen=True, kw_only=True)
class ContinueOptions:
    """What ``resume`` and ``confirm`` were told."""

    agent: str
    session_id: str
    session_db: str
    app: str | None = None
    user: str | None = None
    model: str | None = None
    flags: RunFlags = field(default_factory=RunFlags)
    emulator: bool = False
    emulator_faults: tuple[str, ...] = ()
    check: bool = True


def resume_command(options: ContinueOptions) -> None:
    """Resume the session's unfinished invocation and show the rest of its turn."""
    with provider_emulator(options.emulator, options.emulator_faults):
        asyncio.run(_continue(options, None))


def confirm_command(options: ContinueOptions, answer: Answer, request: str | None) -> None:
    """Answer the session's waiting confirmation requests and show the rest of the turn."""
    with provider_emulator(options.emulator, options.emulator_faults):
        asyncio.run(_continue(options, (answer, request)))


def _unfinished(records: list[InvocationRecord], waiting: bool) -> InvocationRecord | None:
    for record in reversed(records):
        if (record.status is InvocationStatus.WAITING) == waiting and not record.status.is_final:
            return record
    return None


async def _continue(options: ContinueOptions, answering: tuple[Answer, str | None] | None) -> None:
    console = make_console()
    reporter = LiveReporter(console)
    root, settings = prepare_agent(
        options.agent,
        model=options.model,
        check=options.check,
        emulator=options.emulator,
        reporter=reporter,
    )
    async with open_store(options.session_db) as service:
        session = await find_session(
            service, options.session_db, options.session_id, options.app, options.user
        )
        record = _unfinished(await session_records(service, session), answering is not None)
        config = run_config_for(settings, options.flags, record)
        runner = Runner(app_name=session.app_name, agent=root, session_service=service)
        if answering is None:
            events = runner.resume_async(
                user_id=session.user_id, session_id=session.id, run_config=config
            )
        else:
            answer, request = answering
            requests = _chosen(await pending_requests(service, session), request, session.id)
            events = runner.run_async(
                user_id=session.user_id,
                session_id=session.id,
                new_message=answer.message(requests),
                run_config=config,
            )
        printer = EventPrinter(console, reporter=reporter)
        outcome = await play_turn(runner, session.user_id, session.id, events, printer)
    if outcome.requests:
        url, command = options.session_db, activation()[1]
        commands = answer_commands(
            command, options.agent, session.id, url, emulator=options.emulator
        )
        show_waiting(console, outcome.requests, commands)


def _chosen(
    pending: list[ConfirmationRequest], request: str | None, session_id: str
) -> list[ConfirmationRequest]:
    if not pending:
        raise CliError(f"session {session_id} has no confirmation waiting for an answer")
    if request is None:
        return pending
    chosen = [r for r in pending if r.id.startswith(request)]
    if len(chosen) != 1:
        ids = ", ".join(r.id for r in pending)
        raise CliError(f"--request {request!r} names {len(chosen)} of the waiting requests ({ids})")
    return chosen


async def resume_all_command(
    agent_spec: str, session_id: str | None, url: str, app: str | None, user: str | None
) -> None:
    """Resume every expired invocation of the app; one line each; exit 1 if one failed.

    A record that cannot be read is one ``corrupt`` line (and exit 1); the
    others are resumed all the same.
    """
    if session_id is not None or user is not None:
        raise CliError("--all-expired resumes every session of the app: drop SESSION_ID and --user")
    root = load_agent(agent_spec)
    console = make_console()
    failed = corrupt = found = 0
    async with open_store(url) as service:
        runner = Runner(app_name=app or root.name, agent=root, session_service=service)
        async for outcome in resume_expired(runner):
            found += 1
            failed += outcome.result is SweepResult.FAILED
            corrupt += outcome.result is SweepResult.CORRUPT
            console.print(escape(outcome.line()), soft_wrap=True)
    if not found:
        console.print(f"no unfinished invocation of app {escape(runner.app_name)!r}")
    problems: list[str] = []
    if failed:
        problems.append(f"{failed} of {found - corrupt} resumed invocations failed")
    if corrupt:
        problems.append(f"{corrupt} unreadable invocation record(s) skipped")
    if problems:
        raise CliError("; ".join(problems), exit_code=FAILED)
