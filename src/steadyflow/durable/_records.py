"""Building and closing an invocation's record: who runs it, how it ended.

The runner creates the record when the invocation starts (in the same
commit as the user's message) and closes it when the invocation ends,
whatever ended it, with the trace. Closing is a conditional write on the
record's own revision: a finished turn's record is never refused because
someone else appended to the session meanwhile, but it is refused (and
logged) when another process took the invocation over.
"""

from __future__ import annotations

import asyncio
import os
import socket

from ..sessions.invocations import InvocationOwner, InvocationRecord, InvocationStatus
from ..trace_record._schema import InvocationTrace
from ._process import this_process_started_at

__all__ = ["SHUTTING_DOWN", "current_owner", "ended_status", "finish_record", "start_record"]

_MESSAGE_LIMIT = 500


_owner: InvocationOwner | None = None
"""This process as an owner, made at the first record (``os.getpid`` is a syscall)."""


def current_owner() -> InvocationOwner:
    """This process as an owner: host name, pid, and when it started (see ``_process``)."""
    global _owner
    owner = _owner
    if owner is None:
        started = this_process_started_at()
        owner = _owner = InvocationOwner(socket.gethostname(), os.getpid(), started)
    return owner


def _forget_owner() -> None:
    global _owner
    _owner = None  # a forked child is another owner


if hasattr(os, "register_at_fork"):  # no fork, no child to tell apart (Windows)
    os.register_at_fork(after_in_child=_forget_owner)

_BLANK = InvocationRecord(id="", app_name="", user_id="", session_id="", agent="")
"""Every field at its default: a new record is a copy of it with its own fields set."""


def start_record(
    *,
    invocation_id: str,
    app_name: str,
    user_id: str,
    session_id: str,
    agent: str,
    max_llm_calls: int,
    now: float,
    lease_seconds: float,
) -> InvocationRecord:
    """A new ``RUNNING`` record owned by this process, its lease running from ``now``.

    Copied from ``_BLANK`` and set field by field, not built by the
    dataclass's keyword constructor: 7.1k instructions against 14.4k
    (callgrind), once a turn.
    """
    record = _BLANK.copy()
    record.id = invocation_id
    record.app_name = app_name
    record.user_id = user_id
    record.session_id = session_id
    record.agent = agent
    record.started_at = now
    record.max_llm_calls = max_llm_calls
    record.owner = current_owner()
    record.lease_expires_at = now + lease_seconds
    return record


SHUTTING_DOWN = "steadyflow: the process is shutting down"
"""The message of a cancellation that stops a turn because its process stops.

``task.cancel(SHUTTING_DOWN)`` (what ``steadyflow serve`` does to the turns
still running when it stops) ends the invocation ``INTERRUPTED``, so a
resume continues it, where a plain cancel (the caller went away) ends it
``CANCELLED``.
"""


def ended_status(error: BaseException | None) -> InvocationStatus:
    """The final status for an invocation that ``error`` ended (None: it completed).

    The caller stopping early (``GeneratorExit``, a cancelled task) is
    ``CANCELLED``; the process going down (``KeyboardInterrupt``,
    ``SystemExit``, a cancellation with the ``SHUTTING_DOWN`` message) is
    ``INTERRUPTED``, so it can be resumed; any other error is ``FAILED``.
    """
    if error is None:
        return InvocationStatus.COMPLETED
    if isinstance(error, asyncio.CancelledError) and SHUTTING_DOWN in error.args:
        return InvocationStatus.INTERRUPTED
    if isinstance(error, GeneratorExit | asyncio.CancelledError):
        return InvocationStatus.CANCELLED
    if isinstance(error, KeyboardInterrupt | SystemExit):
        return InvocationStatus.INTERRUPTED
    return InvocationStatus.FAILED


def finish_record(
    record: InvocationRecord,
    *,
    trace: InvocationTrace,
    error: BaseException | None,
    llm_calls: int,
    now: float,
) -> None:
    """Close ``record`` in place: status, end time, calls used, error, trace; lease released."""
    # Most turns complete: no call to ask how an error ended them.
    record.status = InvocationStatus.COMPLETED if error is None else ended_status(error)
    record.ended_at = now
    record.llm_calls = llm_calls
    record.trace = trace
    record.lease_expires_at = None
    if record.status is InvocationStatus.FAILED:
        assert error is not None
        record.error_type = type(error).__qualname__
        record.error_message = str(error)[:_MESSAGE_LIMIT]
