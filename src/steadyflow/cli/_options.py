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
    "NoCheck",
    "SessionDb",
    "SessionId",
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
