"""``steadyflow trace SESSION_ID``: the timeline of a session's invocations.

Reads the trace every invocation stored with the session (no OpenTelemetry
backend needed) and draws one timeline per invocation, or only the one
``--invocation`` names (a prefix of its id is enough). ``--json`` prints the
stored traces instead.
"""

from __future__ import annotations

import json
import sys

from ..tracing import InvocationTrace, TraceFormatError, traces_in
from ._console import make_console
from ._errors import CliError
from ._store import find_session, open_store
from ._timeline import render_timeline

__all__ = ["trace_command"]


def _pick(traces: list[InvocationTrace], invocation: str | None) -> list[InvocationTrace]:
    if invocation is None:
        return traces
    chosen = [t for t in traces if t.invocation_id.startswith(invocation)]
    if not chosen:
        known = ", ".join(t.invocation_id for t in traces) or "none"
        raise CliError(f"no invocation {invocation!r} in this session; its invocations: {known}")
    if len(chosen) > 1:
        raise CliError(f"{invocation!r} matches {len(chosen)} invocations; give more of the id")
    return chosen


async def trace_command(
    url: str,
    session_id: str,
    invocation: str | None,
    app: str | None,
    user: str | None,
    as_json: bool,
) -> None:
    """Print the timelines (or the JSON) of a session's stored traces."""
    async with open_store(url) as service:
        session = await find_session(service, url, session_id, app, user)
    try:
        traces = _pick(traces_in(session.events), invocation)
    except TraceFormatError as error:
        message = f"session {session_id!r} holds a trace this version cannot read: {error}"
        raise CliError(message) from error
    if as_json:
        sys.stdout.write(json.dumps([t.to_dict() for t in traces], indent=2) + "\n")
        return
    console = make_console()
    if not traces:
        console.print(f"session {session_id} has no stored traces (no invocation ran yet)")
        return
    for trace in traces:
        console.print(render_timeline(console, trace))
        console.print()
