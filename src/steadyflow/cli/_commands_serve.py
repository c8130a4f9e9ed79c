"""The long-running commands: ``serve``, ``worker`` and ``emulate``, with their options."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from ..sessions import DEFAULT_SESSION_URL
from ._app import app
from ._options import AgentSpec, EmulatorFaults, NoCheck, RetryAttempts, SessionDb, UseEmulator

__all__: list[str] = []  # registers its commands on the app; exports none


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
        int | None,
        typer.Option(
            help="Provider attempts per turn when a request names none. Default: the agent "
            "file's run_config (at most the limit), else 25.",
            show_default=False,
        ),
    ] = None,
    retry_attempts_limit: Annotated[
        int, typer.Option(help="The most retry_max_attempts a request may ask for.")
    ] = 5,
    retry_attempts: RetryAttempts = None,
    max_cost_per_invocation: Annotated[
        str | None,
        typer.Option(
            metavar="USD",
            help="The most a turn may spend, in US dollars; a request may ask for less.",
            show_default=False,
        ),
    ] = None,
    max_tokens_per_invocation: Annotated[
        int | None,
        typer.Option(help="The most input plus output tokens of a turn.", show_default=False),
    ] = None,
    max_input_tokens_per_invocation: Annotated[
        int | None, typer.Option(help="The most input tokens of a turn.", show_default=False)
    ] = None,
    max_output_tokens_per_invocation: Annotated[
        int | None, typer.Option(help="The most output tokens of a turn.", show_default=False)
    ] = None,
    log_level: Annotated[str, typer.Option(help="uvicorn's log level.")] = "info",
    allowed_host: AllowedHosts = None,
    allowed_origin: AllowedOrigins = None,
    operator_token: OperatorToken = None,
    open_routes: Annotated[
        bool,
        typer.Option(
            "--open-routes",
            help="Serve with --operator-token but no --auth-token: every route but the "
            "listing of all sessions is open.",
        ),
    ] = False,
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
    """Serve AGENT over HTTP (sessions, /run, /run_sse, OpenAPI) with the trace viewer at /.

    A module-level run_config = RunConfig(...) in the agent file gives the
    turns their defaults (budget, retries, usage and spend limits, prices);
    the flags override them, and the --max-*-per-invocation ceilings bound
    what a request may ask for.
    """
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
            max_cost_per_invocation=max_cost_per_invocation,
            max_tokens_per_invocation=max_tokens_per_invocation,
            max_input_tokens_per_invocation=max_input_tokens_per_invocation,
            max_output_tokens_per_invocation=max_output_tokens_per_invocation,
            open_routes=open_routes,
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
    retry_attempts: RetryAttempts = None,
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
