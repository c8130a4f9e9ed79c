"""The commands that talk to an agent: ``run`` and ``demo``."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from ..sessions import DEFAULT_SESSION_URL
from ._app import app
from ._options import (
    AgentSpec,
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
    Stream,
    UseEmulator,
)
from ._store import DEFAULT_USER

__all__: list[str] = []  # registers its commands on the app; exports none


@app.command(short_help="Talk to an agent, or answer QUERY and exit.")
def run(
    agent: AgentSpec,
    query: Annotated[
        str | None,
        typer.Argument(
            help="Answer this and exit; omit to chat.", metavar="QUERY", show_default=False
        ),
    ] = None,
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
    ANTHROPIC_API_KEY, GOOGLE_API_KEY or GEMINI_API_KEY) and their base URL
    from OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL; the
    keys are checked before the first turn. --emulator needs none of them.

    A module-level run_config = RunConfig(...) in the agent file sets the
    turns' defaults; each flag given overrides one of its fields. A tool call
    that needs a person's confirmation is asked about in chat; after QUERY,
    the command prints the `steadyflow confirm` line that answers it.
    """
    from ._run import RunOptions, run_command
    from ._settings import RunFlags

    usage = (max_input_tokens, max_output_tokens, max_total_tokens, max_cost, max_tool_calls)
    per_tool = tuple(max_calls_per_tool or ())
    flags = RunFlags(max_llm_calls, retry_attempts, stream, *usage, per_tool)
    run_command(
        RunOptions(
            agent=agent,
            query=query,
            model=model,
            flags=flags,
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
