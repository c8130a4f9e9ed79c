"""``steadyflow trace SESSION_ID``: the timeline of a session's invocations.

Reads the trace each invocation's record holds (no OpenTelemetry backend
needed) and draws one timeline per invocation, or only the one
``--invocation`` names (a prefix of its id is enough). ``--json`` prints the
stored traces instead.
"""

from __future__ import annotations

import json
import sys

from ..errors import TraceFormatError
from ..sessions import InvocationRecord
from ._console import make_console
from ._errors import CliError
from ._store import find_session, open_store, session_records
from ._timeline import render_timeline

__all__ = ["pick_records", "trace_command"]


def pick_records(records: list[InvocationRecord], invocation: str | None) -> list[InvocationRecord]:
    """``records``, or the one whose id starts with ``invocation``."""
    if invocation is None:
        return records
    chosen = [r for r in records if r.id.startswith(invocation)]
    if not chosen:
        known = ", ".join(r.id for r in records) or "none"
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
            records = await session_records(service, session)
        except TraceFormatError as error:
            message = f"session {session_id!r} holds a trace this version cannot read: {error}"
            raise CliError(message) from error
    traces = [r.trace for r in pick_records(records, invocation) if r.trace is not None]
    if as_json:
        sys.stdout.write(json.dumps([t.to_dict() for t in traces], indent=2) + "\n")
        return
    console = make_console()
    if not traces:
        console.print(f"session {session_id} has no stored traces (no invocation ended yet)")
        return
    for trace in traces:
        console.print(render_timeline(console, trace))
        console.print()
