"""Invocation records: what one turn is doing, stored next to its session.

An invocation is a record, not an event: ``session.events`` is the
conversation only (user, agents, tools), and each invocation keeps its own
bookkeeping here. The record says how far the turn got and who runs it:

- ``status`` (``InvocationStatus``), start and end times, the attempts
  it used against ``max_llm_calls``, the error that ended it;
- its ``trace`` (``steadyflow.trace_record.InvocationTrace``), stored when the
  turn ends;
- ``owner`` and ``lease_expires_at``: the process running it and until when
  its claim holds (renewed while it runs), so a crashed turn can be told
  apart from a live one and resumed;
- ``usage``: the tokens and money it used so far and its usage limits
  (``steadyflow.usage``), so a resumed turn goes on counting from there;
- ``journal``: per tool call id, what the durable layer knows of that call
  (started, its result), so a resumed turn never runs a finished tool again;
- ``revision``: bumped by every write. Stores write a record only when the
  caller's revision is the stored one (``update_invocation``), so two
  processes can never both claim or advance the same invocation. These
  writes never depend on the *session's* revision.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any, cast

from ..errors import CorruptRecordError
from ..trace_record._schema import InvocationTrace

__all__ = [
    "FINAL_STATUSES",
    "InvocationOwner",
    "InvocationRecord",
    "InvocationStatus",
    "UnfinishedInvocations",
    "check_record",
]


class InvocationStatus(enum.StrEnum):
    """Where an invocation stands.

    ``RUNNING``: a process holds its lease and is working on it (or died
    doing so: then the lease runs out). ``WAITING``: paused until a person
    answers a confirmation request. ``INTERRUPTED``: stopped by its process
    going down (a signal, a shutdown) before it finished; resumable.
    ``COMPLETED``, ``FAILED`` (an error ended it), ``CANCELLED`` (the
    caller stopped early) and ``SUPERSEDED`` (it waited for a confirmation
    and a new message came instead: its waiting calls were declined) are
    final.
    """

    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"
    WAITING = "waiting"
    SUPERSEDED = "superseded"

    @property
    def is_final(self) -> bool:
        """Whether the invocation is over (nothing left to resume)."""
        return self in FINAL_STATUSES


FINAL_STATUSES = frozenset(
    {
        InvocationStatus.COMPLETED,
        InvocationStatus.FAILED,
        InvocationStatus.CANCELLED,
        InvocationStatus.SUPERSEDED,
    }
)
"""The statuses of an invocation that is over."""


@dataclass(frozen=True, slots=True)
class InvocationOwner:
    """The process running an invocation: its host, pid and when it started (epoch seconds)."""

    host: str
    pid: int
    started_at: float

    def __str__(self) -> str:
        return f"{self.host}:{self.pid}"


@dataclass(kw_only=True)
class InvocationRecord:
    """One invocation's stored record; see the module docstring.

    Attributes:
        id: the invocation id (its events carry it as ``invocation_id``).
        app_name / user_id / session_id: the session it belongs to.
        agent: the agent it started with.
        status: see ``InvocationStatus``.
        started_at / ended_at: epoch seconds (``ended_at`` None while unfinished).
        llm_calls: provider attempts counted so far (across crashes and resumes).
        max_llm_calls: the budget's limit (<= 0: no limit).
        error_type / error_message: what ended a failed invocation.
        trace: the invocation's trace, stored when it ends (None before).
        owner / lease_expires_at: who holds it and until when (epoch seconds).
        resume_count: how many times it was resumed.
        usage: tokens and cost used so far (``UsageTotals.to_dict()``) and
            the ``usage_limits`` under ``"limits"``; empty when nothing was used.
        journal: per tool call id, the durable layer's entry (JSON values).
        revision: bumped by every stored write; see ``update_invocation``.
    """

    id: str
    app_name: str
    user_id: str
    session_id: str
    agent: str
    status: InvocationStatus = InvocationStatus.RUNNING
    started_at: float = 0.0
    ended_at: float | None = None
    llm_calls: int = 0
    max_llm_calls: int = 0
    error_type: str | None = None
    error_message: str | None = None
    trace: InvocationTrace | None = None
    owner: InvocationOwner | None = None
    lease_expires_at: float | None = None
    resume_count: int = 0
    journal: dict[str, Any] = field(default_factory=lambda: {})
    revision: int = 0
    usage: dict[str, Any] = field(default_factory=lambda: {})

    def copy(self) -> InvocationRecord:
        """A copy whose journal (and its entries) can change without touching this one.

        Made field by field on a bare instance (the in-memory store copies a
        record on every write and read, three to six times a turn), not by
        handing the clone a copy of the instance dict: as cheap to make (4.9k
        instructions against 5.1k, callgrind), and the clone keeps the
        compact attribute layout, cheaper to set afterwards (``start_record``,
        a blank record's copy with nine fields set: 7.1k against 10.3k) and
        to free. The constructor costs 10.7k.
        ``tests/sessions/test_record_copy.py`` checks it copies every field.
        """
        clone = object.__new__(InvocationRecord)
        clone.id = self.id
        clone.app_name = self.app_name
        clone.user_id = self.user_id
        clone.session_id = self.session_id
        clone.agent = self.agent
        clone.status = self.status
        clone.started_at = self.started_at
        clone.ended_at = self.ended_at
        clone.llm_calls = self.llm_calls
        clone.max_llm_calls = self.max_llm_calls
        clone.error_type = self.error_type
        clone.error_message = self.error_message
        clone.trace = self.trace
        clone.owner = self.owner
        clone.lease_expires_at = self.lease_expires_at
        clone.resume_count = self.resume_count
        journal = self.journal
        clone.journal = {k: dict(entry) for k, entry in journal.items()} if journal else {}
        clone.revision = self.revision
        clone.usage = dict(self.usage)
        return clone

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready values (the API's and the CLI's ``--json`` form)."""
        owner = self.owner
        return {
            "id": self.id,
            "app_name": self.app_name,
            "user_id": self.user_id,
            "session_id": self.session_id,
            "agent": self.agent,
            "status": self.status.value,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "llm_calls": self.llm_calls,
            "max_llm_calls": self.max_llm_calls,
            "error_type": self.error_type,
            "error_message": self.error_message,
            "owner": None if owner is None else dataclasses.asdict(owner),
            "lease_expires_at": self.lease_expires_at,
            "resume_count": self.resume_count,
            "revision": self.revision,
            "usage": self.usage,
            "trace": None if self.trace is None else self.trace.to_dict(),
        }


_COUNTERS = ("llm_calls", "resume_count", "revision")
"""Counters a record may never hold below zero."""


def _problem(record: InvocationRecord) -> str | None:
    """What makes ``record`` untrustworthy, or None."""
    if not isinstance(record.status, InvocationStatus):
        return f"status {record.status!r} is not an InvocationStatus"
    for name in _COUNTERS:
        value = getattr(record, name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            return f"{name} is {value!r}, not a count (an int >= 0)"
    if not isinstance(record.max_llm_calls, int) or isinstance(record.max_llm_calls, bool):
        return f"max_llm_calls is {record.max_llm_calls!r}, not an int"
    journal: Any = record.journal
    if not isinstance(journal, dict):
        return f"journal is a {type(journal).__name__}, not a JSON object"
    for call_id, entry in cast("dict[str, Any]", journal).items():
        if not isinstance(entry, dict):
            return f"journal entry {call_id!r} is a {type(entry).__name__}, not a JSON object"
    usage: Any = record.usage
    if not isinstance(usage, dict):
        return f"usage is a {type(usage).__name__}, not a JSON object"
    return None


def check_record(record: InvocationRecord) -> InvocationRecord:
    """``record`` itself if every field is what it must be (stores check what they read).

    Raises:
        CorruptRecordError: a field that cannot be trusted (named in the message).
    """
    problem = _problem(record)
    if problem is not None:
        raise CorruptRecordError(
            record.app_name, record.user_id, record.session_id, record.id, problem
        )
    return record


@dataclass(frozen=True, slots=True)
class UnfinishedInvocations:
    """An app's invocations that are not over, and the records among them that could not be read.

    Attributes:
        records: the readable ones, oldest first.
        corrupt: one error per record skipped (it names the record and what is wrong).
    """

    records: list[InvocationRecord]
    corrupt: list[CorruptRecordError]
