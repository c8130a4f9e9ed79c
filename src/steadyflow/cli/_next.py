"""The demo's last lines: the next commands, written so they work as typed in this shell.

``make demo`` runs ``.venv/bin/steadyflow`` without activating the venv, so
in the user's shell ``steadyflow`` is not on ``PATH``: "command not found"
was the first thing a newcomer saw after the demo. The demo therefore
prints, first, how to put this very command on ``PATH`` (``source
.venv/bin/activate``, the path relative to the current folder) when it is
not there, or ``python -m steadyflow`` outside a venv. Each line ends with a
``#`` comment, so it can be pasted as it stands. The "see it again" line
names the session database when it is not the default, and says so
instead when the session lived in memory and is gone.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

from rich.markup import escape

from ..sessions import DEFAULT_SESSION_URL
from ._store import SESSION_DB_ENV, shown_url

__all__ = ["EXAMPLE_AGENT", "activation", "next_steps"]

EXAMPLE_AGENT = "examples/order_support.py"
_NEXT_QUESTION = "Where is order 977?"


def _shown_path(path: Path) -> str:
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)
    return relative if not relative.startswith("..") else str(path)


def activation() -> tuple[str | None, str]:
    """``(line that puts steadyflow on PATH or None, how to call the command)``."""
    scripts = Path(sys.executable).parent
    found = shutil.which("steadyflow")
    if found is not None and Path(found).parent.resolve() == scripts.resolve():
        return None, "steadyflow"
    activate = scripts / "activate"
    if sys.prefix != sys.base_prefix and activate.is_file():
        return f"source {shlex.quote(_shown_path(activate))}", "steadyflow"
    return None, f"{shlex.quote(sys.executable)} -m steadyflow"


def _trace_line(command: str, session_id: str, url: str) -> str:
    if url.startswith("memory:"):
        return (
            "# the session lived in memory (--session-db memory://) and is gone; "
            "run the demo with --session-db sqlite:///PATH to keep it"
        )
    flag = ""
    if url not in (DEFAULT_SESSION_URL, os.environ.get(SESSION_DB_ENV)):
        flag = f" --session-db {shlex.quote(shown_url(url))}"
    return f"{command} trace {session_id}{flag}   # see it again, read from the database"


def next_steps(session_id: str, url: str) -> str:
    """The block the demo ends with (Rich markup escaped)."""
    activate, command = activation()
    agent = EXAMPLE_AGENT if Path(EXAMPLE_AGENT).is_file() else "path/to/agent.py"
    lines = ["", "[bold]next[/], in this shell:"]
    if activate is not None:
        lines.append(f"  {escape(activate)}   # puts the steadyflow command on PATH")
    lines.append(f"  {escape(_trace_line(command, session_id, url))}")
    run = f'{command} run {agent} "{_NEXT_QUESTION}" --emulator'
    lines.append(f"  {escape(run)}   # your own agent, no API key")
    serve = f"{command} serve {agent} --emulator"
    lines.append(f"  {escape(serve)}   # the HTTP API and the trace viewer")
    return "\n".join(lines)
