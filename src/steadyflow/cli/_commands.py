"""The commands, their flags and their help; each hands its work to its own module."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from ..sessions import DEFAULT_SESSION_URL
from ._group import SteadyflowGroup
from ._store import DEFAULT_USER, SESSION_DB_ENV

__all__ = ["app"]

app = typer.Typer(
    cls=SteadyflowGroup,
    name="steadyflow",
    help="Run steadyflow agents, inspect their sessions and traces, and run the demo.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # Click's plain help: wraps long defaults instead of cutting them
    context_settings={"help_option_names": ["-h", "--help"]},
)
sessions_app = typer.Typer(
    cls=SteadyflowGroup,
    help="List, show and delete stored sessions.",
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(sessions_app, name="sessions")

SessionDb = Annotated[
    str,
    typer.Option(
        "--session-db",
        help="Session database URL (sqlite:///path, postgresql://..., memory://).",
        envvar=SESSION_DB_ENV,
    ),
]
AppName = Annotated[
    str | None, typer.Option("--app", help="The session's app (default: found from the id).")
]
UserName = Annotated[
    str | None, typer.Option("--user", help="The session's user (default: found from the id).")
]
SessionId = Annotated[
    str,
    typer.Argument(
        help="The session's id, or a unique prefix of it.", metavar="SESSION_ID", show_default=False
    ),
]
AgentSpec = Annotated[
    str,
    typer.Argument(
        help="path/to/agent.py (defining root_agent), or package.module:attr.",
        metavar="AGENT",
        show_default=False,
    ),
]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
UseEmulator = Annotated[
    bool,
    typer.Option(
        "--emulator",
        help="Point every provider at the emulator on loopback (no key, no network).",
    ),
]
EmulatorFaults = Annotated[
    list[str] | None,
    typer.Option(
        "--emulator-fault",
        metavar="SPEC",
        help="With --emulator: inject a fault, e.g. 429@1,retry_after=1 (repeat).",
        show_default=False,
    ),
]
NoCheck = Annotated[
    bool,
    typer.Option(
        "--no-check", help="Do not check at start that every model has its API key and SDK."
    ),
]


def _print_version(asked: bool) -> None:
    if asked:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("steadyflow")
        except PackageNotFoundError:  # a source tree on sys.path, not installed
            number = "0+unknown"
        typer.echo(f"steadyflow {number}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: Annotated[
        bool, typer.Option("--debug", help="Show tracebacks (accepted anywhere on the line).")
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Run steadyflow agents, inspect their sessions and traces, and run the demo."""
    del debug, version  # --debug is read by SteadyflowGroup before parsing


@app.command(short_help="Talk to an agent, or answer QUERY and exit.")
def run(
    agent: AgentSpec,
    query: Annotated[
        str | None,
        typer.Argument(
            help="Answer this and exit; omit to chat.", metavar="QUERY", show_default=False
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            help="Model for every agent (gpt-4o-mini, openai/..., claude-..., gemini-...)."
        ),
    ] = None,
    max_llm_calls: Annotated[
        int, typer.Option(help="Provider attempts allowed per turn, retries included; <= 0: off.")
    ] = 500,
    retry_attempts: Annotated[
        int, typer.Option(min=1, help="Attempts per model call (1: no retries).")
    ] = 3,
    stream: Annotated[bool, typer.Option(help="Stream answers as they are generated.")] = False,
    session_db: SessionDb = DEFAULT_SESSION_URL,
    resume: Annotated[
        str | None, typer.Option(help="Continue this session instead of starting one.")
    ] = None,
    jsonl: Annotated[
        bool, typer.Option("--jsonl", help="Print each event as one JSON line (for scripts).")
    ] = False,
    app_name: Annotated[
        str | None, typer.Option("--app", help="App to store sessions under (default: agent name).")
    ] = None,
    user: Annotated[str, typer.Option(help="User to store sessions under.")] = DEFAULT_USER,
    emulator: UseEmulator = False,
    emulator_fault: EmulatorFaults = None,
    no_check: NoCheck = False,
) -> None:
    """Talk to an agent, or answer QUERY and exit.

    Real providers read their API key from the environment (OPENAI_API_KEY,
    ANTHROPIC_API_KEY, GEMINI_API_KEY) and their base URL from
    OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL; the keys
    are checked before the first turn. --emulator needs none of them.
    """
    from ._run import RunOptions, run_command

    run_command(
        RunOptions(
            agent=agent,
            query=query,
            model=model,
            max_llm_calls=max_llm_calls,
            retry_attempts=retry_attempts,
            stream=stream,
            session_db=session_db,
            resume=resume,
            jsonl=jsonl,
            app=app_name,
            user=user,
            emulator=emulator,
            emulator_faults=tuple(emulator_fault or ()),
            check=not no_check,
        )
    )


@app.command(short_help="The order-support agent surviving injected faults.")
def demo(
    provider: Annotated[
        str, typer.Option(help="Provider wire format and SDK: gemini, openai or anthropic.")
    ] = "openai",
    faults: Annotated[
        str | None,
        typer.Option(
            help="Fault script, space-separated (e.g. '429@1,retry_after=1 503@2 "
            "break@4,after=0'); '' for none. Default: that script.",
            show_default=False,
        ),
    ] = None,
    stream: Annotated[bool, typer.Option(help="Stream the answers.")] = True,
    seed: Annotated[int, typer.Option(help="Seed of the retry jitter and emulator faults.")] = 0,
    session_db: SessionDb = DEFAULT_SESSION_URL,
    chunk_delay: Annotated[float, typer.Option(min=0.0, hidden=True)] = 0.03,
) -> None:
    """Run the order-support agent through a real provider SDK, under injected faults.

    No API key or network: the provider emulator serves on loopback and
    answers with a 429 (Retry-After), a 503 and a broken stream to retry
    through. Ends with the invocation's timeline and where it is stored.
    """
    from ._demo import DemoOptions, run_demo

    options = DemoOptions(
        provider=provider,
        faults=faults,
        stream=stream,
        seed=seed,
        session_db=session_db,
        chunk_delay=chunk_delay,
    )
    asyncio.run(run_demo(options))


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


AllowedHosts = Annotated[
    list[str] | None,
    typer.Option(help="Also answer requests for this Host name (repeat; '*': any)."),
]
AllowedOrigins = Annotated[
    list[str] | None,
    typer.Option(help="Browser origin that may change state besides the server's (repeat)."),
]
OperatorToken = Annotated[
    str | None,
    typer.Option(
        help="Token that may list every user's sessions (not the --auth-token).",
        envvar="STEADYFLOW_OPERATOR_TOKEN",
        show_default=False,
    ),
]
AllowSharedState = Annotated[
    bool,
    typer.Option("--allow-shared-state", help="Let new sessions set app: and user: state keys."),
]


TemporalAddress = Annotated[
    str | None,
    typer.Option(
        "--temporal-address",
        metavar="HOST:PORT",
        help="The Temporal frontend to run invocations on (a fleet of steadyflow workers).",
        envvar="STEADYFLOW_TEMPORAL_ADDRESS",
        show_default=False,
    ),
]
TaskQueue = Annotated[
    str, typer.Option("--task-queue", help="The Temporal task queue of the fleet.")
]
Namespace = Annotated[str, typer.Option("--namespace", help="The Temporal namespace.")]


@app.command(short_help="The HTTP API and trace viewer for AGENT.")
def serve(
    agent: AgentSpec,
    host: Annotated[
        str, typer.Option(help="Interface to bind (0.0.0.0: every one).")
    ] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option(
            min=0, max=65535, help="TCP port (0: any free one).", envvar="STEADYFLOW_PORT"
        ),
    ] = 8000,
    session_db: SessionDb = DEFAULT_SESSION_URL,
    auth_token: Annotated[
        str | None,
        typer.Option(
            help="Require 'Authorization: Bearer TOKEN' on every endpoint but /health.",
            envvar="STEADYFLOW_AUTH_TOKEN",
            show_default=False,
        ),
    ] = None,
    model: Annotated[str | None, typer.Option(help="Model for every agent.")] = None,
    app_name: Annotated[
        str | None, typer.Option("--app", help="App name in URLs and sessions (default: agent's).")
    ] = None,
    max_llm_calls_limit: Annotated[
        int, typer.Option(help="The most max_llm_calls a request may ask for.")
    ] = 100,
    max_llm_calls: Annotated[
        int, typer.Option(help="Provider attempts per turn when a request names none.")
    ] = 25,
    retry_attempts_limit: Annotated[
        int, typer.Option(help="The most retry_max_attempts a request may ask for.")
    ] = 5,
    retry_attempts: Annotated[
        int, typer.Option(help="Attempts per model call when a request names none.")
    ] = 3,
    log_level: Annotated[str, typer.Option(help="uvicorn's log level.")] = "info",
    allowed_host: AllowedHosts = None,
    allowed_origin: AllowedOrigins = None,
    operator_token: OperatorToken = None,
    allow_shared_state: AllowSharedState = False,
    emulator: UseEmulator = False,
    emulator_fault: EmulatorFaults = None,
    no_check: NoCheck = False,
    no_resume_expired: Annotated[
        bool,
        typer.Option(
            "--no-resume-expired",
            help="Do not resume, at start-up, the app's invocations whose lease expired or "
            "whose owner is gone (by default they resume in the background).",
        ),
    ] = False,
    temporal_address: TemporalAddress = None,
    task_queue: TaskQueue = "steadyflow",
    namespace: Namespace = "default",
) -> None:
    """Serve AGENT over HTTP (sessions, /run, /run_sse, OpenAPI) with the trace viewer at /."""
    from ._serve import ServeOptions, serve_command

    serve_command(
        ServeOptions(
            agent=agent,
            host=host,
            port=port,
            session_db=session_db,
            auth_token=auth_token,
            model=model,
            app=app_name,
            max_llm_calls_limit=max_llm_calls_limit,
            max_llm_calls=max_llm_calls,
            retry_attempts_limit=retry_attempts_limit,
            retry_attempts=retry_attempts,
            log_level=log_level,
            allowed_hosts=tuple(allowed_host or ()),
            allowed_origins=tuple(allowed_origin or ()),
            operator_token=operator_token,
            allow_shared_state=allow_shared_state,
            emulator=emulator,
            emulator_faults=tuple(emulator_fault or ()),
            check=not no_check,
            resume_expired=not no_resume_expired,
            temporal_address=temporal_address,
            task_queue=task_queue,
            namespace=namespace,
        )
    )


@app.command()
def worker(
    agent: AgentSpec,
    temporal_address: TemporalAddress = None,
    task_queue: TaskQueue = "steadyflow",
    namespace: Namespace = "default",
    session_db: SessionDb = DEFAULT_SESSION_URL,
    app_name: Annotated[
        str | None, typer.Option("--app", help="The app's name (default: the agent's).")
    ] = None,
    retry_attempts: Annotated[
        int, typer.Option(help="Attempts per model call (steadyflow's retry policy).")
    ] = 3,
    heartbeat_timeout: Annotated[
        float, typer.Option(help="Seconds of silence after which a worker counts as lost.")
    ] = 10.0,
    max_concurrent_activities: Annotated[
        int, typer.Option(min=1, help="Model and tool calls this worker runs at once.")
    ] = 100,
) -> None:
    """Run invocations of AGENT from a Temporal task queue (one worker of a fleet)."""
    from ._errors import CliError
    from ._worker import WorkerOptions, worker_command

    if not temporal_address:
        raise CliError("give --temporal-address HOST:PORT (or STEADYFLOW_TEMPORAL_ADDRESS)")
    options = WorkerOptions(
        agent=agent,
        temporal_address=temporal_address,
        task_queue=task_queue,
        namespace=namespace,
        session_db=session_db,
        app=app_name,
        retry_attempts=retry_attempts,
        heartbeat_timeout=heartbeat_timeout,
        max_concurrent_activities=max_concurrent_activities,
    )
    asyncio.run(worker_command(options))


@app.command(short_help="Serve the provider emulator on loopback.")
def emulate(
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="TCP port (0: any free one).")] = 0,
    fault: Annotated[
        list[str] | None,
        typer.Option(
            metavar="SPEC",
            help="Inject a fault (repeat): 429@1,retry_after=2  503@2  reset@3  "
            "break@1,after=1  delay@1,seconds=5  malformed@4  503%0.2.",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the probabilistic faults.")] = 0,
    script: Annotated[
        Path | None,
        typer.Option(help="JSON file: a list of answers to give in order.", show_default=False),
    ] = None,
    api_key: Annotated[
        str | None, typer.Option(help="Require this API key on every request.", show_default=False)
    ] = None,
    chunk_delay: Annotated[float, typer.Option(min=0.0, help="Seconds between SSE events.")] = 0.0,
) -> None:
    """Serve the Gemini, OpenAI and Anthropic wire formats on loopback, with faults.

    Prints the base URL and the export lines that point the SDKs at it;
    Ctrl-C stops it. Without --script, a rule-based model answers order
    questions with the agent's tools.
    """
    from ..testing.emulator import main as emulator_main
    from ._emulator import parse_faults

    parse_faults(fault or (), "--fault")  # a bad spec is one line and exit 2, as elsewhere
    argv = ["--host", host, "--port", str(port), "--seed", str(seed)]
    argv += ["--chunk-delay", str(chunk_delay)]
    for spec in fault or ():
        argv += ["--fault", spec]
    if script is not None:
        argv += ["--script", str(script)]
    if api_key is not None:
        argv += ["--api-key", api_key]
    raise typer.Exit(emulator_main(argv))


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
    """Print spend under spend limits by app, user, session or model over a window."""
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
