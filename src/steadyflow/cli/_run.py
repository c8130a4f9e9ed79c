"""``steadyflow run AGENT [QUERY]``: talk to an agent, or ask it one thing and exit.

Sessions are stored in the session database (``--session-db``), under the
app named after the root agent (``--app``) and the user ``user``
(``--user``); ``--resume ID`` continues one. Retries are on (3 attempts) and
every attempt counts against ``--max-llm-calls``; progress is shown live.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from ..agents.base_agent import BaseAgent
from ..errors import ConfigurationError
from ..retry._config import RetryConfig
from ..run_config import RunConfig, StreamingMode
from ..runner import Runner
from ..sessions import BaseSessionService
from ..trace_record import InvocationTrace
from ._check import check_models
from ._console import make_console
from ._emulator import provider_emulator
from ._errors import FAILED, CliError, user_errors
from ._live import LiveReporter, observe_models
from ._loader import load_agent, override_model
from ._render import EventPrinter
from ._store import find_session, open_store, shown_url

__all__ = ["RunOptions", "run_command"]

_EXIT_WORDS = ("exit", "quit", ":q")


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """Everything ``steadyflow run`` was told."""

    agent: str
    query: str | None
    model: str | None
    max_llm_calls: int
    retry_attempts: int
    stream: bool
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


def _prepare(options: RunOptions, reporter: LiveReporter | None) -> tuple[BaseAgent, RunConfig]:
    root = load_agent(options.agent)
    if options.model:
        override_model(root, options.model)
    if options.check:
        check_models(root)
    try:
        with user_errors():
            config = RunConfig(
                max_llm_calls=options.max_llm_calls,
                streaming_mode=StreamingMode.SSE if options.stream else StreamingMode.NONE,
                retry_config=RetryConfig(max_attempts=options.retry_attempts),
            )
            if reporter is not None:
                observe_models(root, reporter)
    except ImportError as error:
        raise CliError(str(error)) from error
    return root, config


async def _run(options: RunOptions) -> None:
    console = make_console(stderr=options.jsonl)
    reporter = None if options.jsonl else LiveReporter(console)
    root, config = _prepare(options, reporter)
    async with open_store(options.session_db) as service:
        runner = Runner(app_name=options.app or root.name, agent=root, session_service=service)
        session_id = await _session_id(runner, service, options)
        printer = EventPrinter(console, jsonl=options.jsonl, reporter=reporter)
        if options.query is not None:
            await _turn(runner, session_id, options, config, printer, options.query)
        else:
            await _interactive(runner, session_id, options, config, printer)
        if options.jsonl:
            console.print(f"session {session_id} in {shown_url(options.session_db)}")


async def _session_id(runner: Runner, service: BaseSessionService, options: RunOptions) -> str:
    if options.resume is None:
        return (await runner.create_session(user_id=options.user)).id
    session = await find_session(
        service, options.session_db, options.resume, runner.app_name, options.user
    )
    return session.id


async def _interactive(
    runner: Runner, session_id: str, options: RunOptions, config: RunConfig, printer: EventPrinter
) -> None:
    console = printer.console
    console.print(f"[dim]session {session_id} · type exit or press Ctrl-D to leave[/]")
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
            await _turn(runner, session_id, options, config, printer, line)
        except CliError as error:
            console.print(f"[red]error:[/] {error}")


async def _turn(
    runner: Runner,
    session_id: str,
    options: RunOptions,
    config: RunConfig,
    printer: EventPrinter,
    message: str,
) -> None:
    failure: Exception | None = None
    reporter = printer.reporter
    try:
        events = runner.run_async(
            user_id=options.user, session_id=session_id, new_message=message, run_config=config
        )
        if reporter is None:
            async for event in events:
                printer.show(event)
        else:
            with reporter.retry_logs():
                async for event in events:
                    printer.show(event)
    except Exception as error:
        failure = error
    printer.summary(await _last_trace(runner, session_id, options.user), session_id)
    if failure is not None:
        code = 2 if isinstance(failure, ConfigurationError) else FAILED
        text = " ".join(str(failure).split())
        raise CliError(f"the turn failed: {type(failure).__name__}: {text}", code) from failure


async def _last_trace(runner: Runner, session_id: str, user: str) -> InvocationTrace | None:
    records = await runner.session_service.list_invocations(
        app_name=runner.app_name, user_id=user, session_id=session_id
    )
    traces = [r.trace for r in records if r.trace is not None]
    return traces[-1] if traces else None
