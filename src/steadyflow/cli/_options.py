"""The arguments and options several commands share, defined once."""

from __future__ import annotations

from typing import Annotated

import typer

from ._store import SESSION_DB_ENV

__all__ = [
    "AgentSpec",
    "AppName",
    "AsJson",
    "EmulatorFaults",
    "MaxCallsPerTool",
    "MaxCost",
    "MaxInputTokens",
    "MaxLlmCalls",
    "MaxOutputTokens",
    "MaxToolCalls",
    "MaxTotalTokens",
    "ModelName",
    "NoCheck",
    "RetryAttempts",
    "SessionDb",
    "SessionId",
    "Stream",
    "UseEmulator",
    "UserName",
]

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
ModelName = Annotated[
    str | None,
    typer.Option(
        "--model",
        help="Model for every agent (gpt-4o-mini, openai/..., claude-..., gemini-...).",
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

# The run settings: None means "not given", so the agent file's run_config
# (or the command's default) stands.
MaxLlmCalls = Annotated[
    int | None,
    typer.Option(
        help="Provider attempts allowed per turn, retries included; <= 0: off. "
        "Default: the agent file's run_config, else 500.",
        show_default=False,
    ),
]
RetryAttempts = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="Attempts per model call (1: no retries). Default: the agent file's "
        "run_config, else 3.",
        show_default=False,
    ),
]
Stream = Annotated[
    bool | None,
    typer.Option(
        "--stream/--no-stream",
        help="Stream answers as they are generated. Default: the agent file's run_config, "
        "else off.",
        show_default=False,
    ),
]
MaxInputTokens = Annotated[
    int | None,
    typer.Option(min=0, help="Input tokens the turn may use in all.", show_default=False),
]
MaxOutputTokens = Annotated[
    int | None,
    typer.Option(min=0, help="Output tokens the turn may use in all.", show_default=False),
]
MaxTotalTokens = Annotated[
    int | None,
    typer.Option(min=0, help="Input plus output tokens the turn may use.", show_default=False),
]
MaxCost = Annotated[
    str | None,
    typer.Option(
        metavar="USD",
        help="US dollars the turn may spend (needs a price for every model: steadyflow[cost] "
        "or the agent file's run_config prices).",
        show_default=False,
    ),
]
MaxToolCalls = Annotated[
    int | None,
    typer.Option(
        min=0, help="Tool calls the turn may run, all tools together.", show_default=False
    ),
]
MaxCallsPerTool = Annotated[
    list[str] | None,
    typer.Option(
        metavar="TOOL=N",
        help="Calls one tool may run in the turn, e.g. refund_order=1 (repeat per tool).",
        show_default=False,
    ),
]
