"""``steadyflow invocations SESSION_ID``: a session's invocation records, one row each.

Shows what each turn is or was doing: its status, attempts used against
the budget, how often it was resumed, who runs it and until when its lease
holds, and the error that ended it. ``--json`` prints the records.
"""

from __future__ import annotations

import datetime
import json
import sys

from rich import box
from rich.markup import escape
from rich.table import Table

from ..sessions import InvocationRecord
from ._console import is_plain, make_console
from ._store import find_session, open_store, session_records

__all__ = ["invocations_command"]


def _when(timestamp: float | None) -> str:
    if timestamp is None:
        return "-"
    return datetime.datetime.fromtimestamp(timestamp).astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _row(record: InvocationRecord) -> list[str]:
    budget = f"{record.llm_calls}/{record.max_llm_calls}" if record.max_llm_calls > 0 else "off"
    held = "-"
    if not record.status.is_final and record.owner is not None:
        held = f"{record.owner} until {_when(record.lease_expires_at)[11:]}"
    error = f"{record.error_type}: {record.error_message}" if record.error_type else ""
    return [
        record.id,
        record.agent,
        record.status.value,
        _when(record.started_at),
        budget,
        str(record.resume_count),
        held,
        escape(error),
    ]


async def invocations_command(
    url: str, session_id: str, app: str | None, user: str | None, as_json: bool
) -> None:
    """Print a session's invocation records as a table (oldest first) or JSON."""
    async with open_store(url) as service:
        session = await find_session(service, url, session_id, app, user)
        records = await session_records(service, session)
    if as_json:
        sys.stdout.write(json.dumps([r.to_dict() for r in records], indent=2) + "\n")
        return
    console = make_console()
    if not records:
        console.print(f"session {session_id} has no invocations yet")
        return
    table = Table(box=None if is_plain(console) else box.SIMPLE_HEAD, pad_edge=False)
    for column in ("invocation", "agent", "status", "started", "attempts", "resumed", "held by"):
        table.add_column(column, no_wrap=True)
    table.add_column("error")
    for record in records:
        table.add_row(*_row(record))
    console.print(table)
