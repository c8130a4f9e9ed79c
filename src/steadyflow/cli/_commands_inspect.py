"""The commands on one stored session: trace, invocations, resume, confirm, dump-request."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from ..sessions import DEFAULT_SESSION_URL
from ._app import app
from ._errors import CliError
from ._options import (
    AgentSpec,
    AppName,
    AsJson,
    EmulatorFaults,
    MaxCallsPerTool,
    MaxCost,
    MaxInputTokens,
    MaxLlmCalls,
    MaxOutputTokens,
    MaxToolCalls,
    MaxTotalTokens,
    ModelName,
    NoCheck,
    RetryAttempts,
    SessionDb,
    SessionId,
    Stream,
    UseEmulator,
    UserName,
)

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
    model: ModelName = None,
    max_llm_calls: MaxLlmCalls = None,
    retry_attempts: RetryAttempts = None,
    stream: Stream = None,
    max_input_tokens: MaxInputTokens = None,
    max_output_tokens: MaxOutputTokens = None,
    max_total_tokens: MaxTotalTokens = None,
    max_cost: MaxCost = None,
    max_tool_calls: MaxToolCalls = None,
    max_calls_per_tool: MaxCallsPerTool = None,
    emulator: UseEmulator = False,
    emulator_fault: EmulatorFaults = None,
    no_check: NoCheck = False,
) -> None:
    """Continue a session's crashed invocation: nothing committed is done again.

    The invocation keeps its budget and usage limits unless a flag says
    otherwise; the rest comes from the agent file's run_config, as for run.
    """
    from ._resume import ContinueOptions, resume_all_command, resume_command
    from ._settings import RunFlags

    if all_expired:
        asyncio.run(resume_all_command(agent, session_id, session_db, app_name, user))
        return
    if session_id is None:
        raise CliError("give the SESSION_ID to resume, or --all-expired to resume every one")
    usage = (max_input_tokens, max_output_tokens, max_total_tokens, max_cost, max_tool_calls)
    per_tool = tuple(max_calls_per_tool or ())
    flags = RunFlags(max_llm_calls, retry_attempts, stream, *usage, per_tool)
    resume_command(
        ContinueOptions(
            agent=agent,
            session_id=session_id,
            session_db=session_db,
            app=app_name,
            user=user,
            model=model,
            flags=flags,
            emulator=emulator,
            emulator_faults=tuple(emulator_fault or ()),
            check=not no_check,
        )
    )


@app.command(short_help="Allow or decline the tool calls a session waits on.")
def confirm(
    agent: AgentSpec,
    session_id: SessionId,
    decline: Annotated[
        bool, typer.Option("--decline", help="Decline instead of allowing (the tool does not run).")
    ] = False,
    request: Annotated[
        str | None,
        typer.Option(
            help="Answer only this request (its id or a prefix; default: every waiting one).",
            show_default=False,
        ),
    ] = None,
    payload: Annotated[
        str | None,
        typer.Option(metavar="JSON", help="Data for the tool with the answer.", show_default=False),
    ] = None,
    session_db: SessionDb = DEFAULT_SESSION_URL,
    app_name: AppName = None,
    user: UserName = None,
    model: ModelName = None,
    max_llm_calls: MaxLlmCalls = None,
    retry_attempts: RetryAttempts = None,
    stream: Stream = None,
    max_input_tokens: MaxInputTokens = None,
    max_output_tokens: MaxOutputTokens = None,
    max_total_tokens: MaxTotalTokens = None,
    max_cost: MaxCost = None,
    max_tool_calls: MaxToolCalls = None,
    max_calls_per_tool: MaxCallsPerTool = None,
    emulator: UseEmulator = False,
    emulator_fault: EmulatorFaults = None,
    no_check: NoCheck = False,
) -> None:
    """Answer the confirmation requests a session waits on, and run the rest of its turn.

    `steadyflow run AGENT QUERY` prints this command when a tool call needs a
    person's yes or no.
    """
    from ._confirm import Answer
    from ._resume import ContinueOptions, confirm_command
    from ._settings import RunFlags

    answer = Answer.from_flags(decline, payload)
    usage = (max_input_tokens, max_output_tokens, max_total_tokens, max_cost, max_tool_calls)
    per_tool = tuple(max_calls_per_tool or ())
    flags = RunFlags(max_llm_calls, retry_attempts, stream, *usage, per_tool)
    options = ContinueOptions(
        agent=agent,
        session_id=session_id,
        session_db=session_db,
        app=app_name,
        user=user,
        model=model,
        flags=flags,
        emulator=emulator,
        emulator_faults=tuple(emulator_fault or ()),
        check=not no_check,
    )
    confirm_command(options, answer, request)


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
