"""Resuming an invocation: which one, whether it may be taken, and where it stands.

``claim`` picks the invocation (the one named, else the session's latest
unfinished one), refuses what must not be taken (a finished one, one
waiting for a person, one whose owner is alive and whose lease holds), and
takes it with a write conditional on the record's revision: of two
processes resuming at once, exactly one succeeds; the other gets
``StaleInvocationError``.

``resume_point`` reads where the turn stands from the session's stored
events alone (what was committed): a model call comes next (after the
user's message or a tool response event), or the last model event's tool
calls still need their response event, or the turn had already answered.
Confirmation pauses and answers (``_confirm``) are looked through.
"""

from __future__ import annotations

import enum
import os
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

from .._aio import aclose
from .._confirmation import is_confirmation_event
from ..agents.base_agent import BaseAgent
from ..agents.llm_agent import LlmAgent
from ..context import InvocationContext
from ..errors import NothingToResumeError
from ..events import Event
from ..flows._functions import execute_function_calls
from ..flows.processors._tools import ask_toolsets
from ..sessions.base import BaseSessionService, Session
from ..sessions.invocations import InvocationOwner, InvocationRecord, InvocationStatus
from ..types import Content, FunctionCall
from ._confirm import settle_waiting, waits_for_a_person
from ._process import START_TOLERANCE, process_started_at
from ._records import current_owner

__all__ = [
    "ResumePoint",
    "claim",
    "claim_taker",
    "is_free",
    "owner_alive",
    "resumable",
    "resume_point",
    "resumed_events",
]


class _Liveness(enum.Enum):
    ALIVE = "alive"  # verified: this process, or a same-host pid that started when the owner did
    GONE = "gone"  # verified: no such process, or a recycled pid
    UNKNOWN = "unknown"  # another host, or a live pid whose start time cannot be read


def _liveness(owner: InvocationOwner | None) -> _Liveness:
    """What can be known of ``owner``'s process from here (see ``owner_alive``)."""
    if owner is None:
        return _Liveness.GONE
    if owner.host != socket.gethostname():
        return _Liveness.UNKNOWN
    if owner.pid == os.getpid():
        return _Liveness.ALIVE if owner == current_owner() else _Liveness.GONE
    started = process_started_at(owner.pid)
    if started is not None:
        alive = abs(started - owner.started_at) <= START_TOLERANCE
        return _Liveness.ALIVE if alive else _Liveness.GONE
    try:  # no /proc to read: whether the pid exists is all that can be known
        os.kill(owner.pid, 0)
    except ProcessLookupError:
        return _Liveness.GONE
    except PermissionError:
        return _Liveness.UNKNOWN
    return _Liveness.UNKNOWN


def owner_alive(owner: InvocationOwner | None) -> bool:
    """Whether ``owner``'s process may still be running (only a same-host pid can be checked).

    A live pid is the owner only if it started when the owner did: a pid
    the kernel recycled for another process does not keep a dead owner's
    lease (see ``_process``).
    """
    return _liveness(owner) is not _Liveness.GONE


def is_free(record: InvocationRecord, now: float) -> bool:
    """Whether a non-final record may be taken (see docs/durability.md, "owners and leases").

    Interrupted: yes. Running: when its owner is verifiably gone, at once;
    when its owner is verifiably alive (this process, or a same-host pid
    with the owner's start time), never, even past its lease (a tool that
    blocks may have kept the lease from being renewed, and taking over would
    run the turn twice at once); otherwise (another host, no ``/proc``) once
    its lease has run out.
    """
    if record.status is InvocationStatus.INTERRUPTED:
        return True
    if record.status is not InvocationStatus.RUNNING:
        return False
    liveness = _liveness(record.owner)
    if liveness is not _Liveness.UNKNOWN:
        return liveness is _Liveness.GONE
    lease = record.lease_expires_at
    return lease is None or lease <= now


def _pick(
    records: list[InvocationRecord], invocation_id: str | None, session_id: str
) -> InvocationRecord:
    if invocation_id is not None:
        for record in records:
            if record.id == invocation_id:
                return record
        raise NothingToResumeError(f"session {session_id!r} has no invocation {invocation_id!r}")
    unfinished = [r for r in records if not r.status.is_final]
    if not unfinished:
        latest = f" (the latest is {records[-1].status.value})" if records else ""
        raise NothingToResumeError(
            f"session {session_id!r} has no unfinished invocation{latest}; "
            "a new message goes on from what it stored"
        )
    return unfinished[-1]


def resumable(
    records: list[InvocationRecord], invocation_id: str | None, session_id: str, now: float
) -> InvocationRecord:
    """The record a resume would take (nothing written; the server asks before it streams).

    Raises:
        NothingToResumeError: none to resume, or it may not be taken.
    """
    record = _pick(records, invocation_id, session_id)
    if record.status.is_final:
        raise NothingToResumeError(f"invocation {record.id!r} is {record.status.value}")
    if record.status is InvocationStatus.WAITING:
        raise NothingToResumeError(
            f"invocation {record.id!r} is waiting for a confirmation; answer its request "
            "(steadyflow.tools.confirmation_answer) as run_async's new_message"
        )
    if not is_free(record, now):
        raise NothingToResumeError(
            f"invocation {record.id!r} is running in process {record.owner} (lease until "
            f"{record.lease_expires_at}); a live invocation is never taken over"
        )
    return record


async def claim(
    service: BaseSessionService,
    session: Session,
    invocation_id: str | None,
    *,
    now: float,
    lease_seconds: float,
) -> InvocationRecord:
    """Take the invocation to resume (see the module docstring).

    Raises:
        NothingToResumeError: none to resume, or it may not be taken.
        StaleInvocationError: another process took it first.
    """
    record, _ = await _claim(service, session, invocation_id, now, lease_seconds)
    return record


async def _claim(
    service: BaseSessionService,
    session: Session,
    invocation_id: str | None,
    now: float,
    lease_seconds: float,
) -> tuple[InvocationRecord, bool]:
    """``claim``, and whether the record was left unclosed (``RUNNING``) by its process."""
    records = await service.list_invocations(
        app_name=session.app_name, user_id=session.user_id, session_id=session.id
    )
    record = resumable(records, invocation_id, session.id, now)
    if waits_for_a_person(record):  # its process stopped after asking, before closing it
        settle_waiting(record, None)
        record.lease_expires_at = None
        await service.update_invocation(record)
        raise NothingToResumeError(f"invocation {record.id!r} is waiting for a confirmation")
    unclosed = record.status is InvocationStatus.RUNNING
    record.status, record.owner = InvocationStatus.RUNNING, current_owner()
    record.lease_expires_at = now + lease_seconds
    record.resume_count += 1
    record.ended_at = record.error_type = record.error_message = None
    await service.update_invocation(record)
    return record, unclosed


def claim_taker(
    service: BaseSessionService, invocation_id: str | None, lease_seconds: float
) -> Callable[[Session], Awaitable[tuple[InvocationRecord, bool]]]:
    """``claim`` for the runner, now, and whether an attempt may be uncounted (``Taker``).

    A record its process closed ``INTERRUPTED`` holds the exact count (the
    closing write stored every attempt started, and none was started after
    it); one left ``RUNNING`` by a killed process holds its last write's, so
    a model call in flight then may be missing from it.
    """

    async def take(session: Session) -> tuple[InvocationRecord, bool]:
        return await _claim(service, session, invocation_id, time.time(), lease_seconds)

    return take


@dataclass
class ResumePoint:
    """Where a resumed turn stands, read from its stored events.

    Attributes:
        agent_name: the agent that continues (None: the record's).
        user_content: the message that started the invocation.
        pending_calls: the last model event's calls still without a response event.
        answered: the stored events already end the turn.
        model_next: a model call comes next (one may have been in flight at the crash).
    """

    agent_name: str | None = None
    user_content: Content | None = None
    pending_calls: list[FunctionCall] = field(default_factory=lambda: [])
    answered: bool = False
    model_next: bool = False


def resume_point(events: list[Event], invocation_id: str) -> ResumePoint:
    """Where invocation ``invocation_id`` stands in ``events`` (see the module docstring)."""
    own = [e for e in events if e.invocation_id == invocation_id]
    point = ResumePoint()
    users = [e for e in own if e.author == "user"]
    point.user_content = users[0].content if users else None
    # A pause for confirmation and its answers are bookkeeping: the paused
    # batch's calls are what stands (they run once every request is answered).
    agents = [e for e in own if e.author != "user" and not is_confirmation_event(e)]
    if not agents:
        point.model_next = True
        return point
    last = agents[-1]
    point.agent_name = last.actions.transfer_to_agent or last.author
    waiting = set(last.long_running_tool_ids or [])
    calls = [c for c in last.get_function_calls() if c.id not in waiting]
    if calls:
        point.pending_calls = calls
    elif last.get_function_calls():  # only long-running calls: the turn handed them out
        point.answered = True
    elif last.get_function_responses() and not last.is_final_response():
        point.model_next = not last.actions.end_invocation
        point.answered = last.actions.end_invocation
    else:
        point.answered = last.is_final_response() or last.actions.end_invocation
        point.model_next = not point.answered
    return point


async def resumed_events(
    agent: BaseAgent, ctx: InvocationContext, point: ResumePoint
) -> AsyncIterator[Event]:
    """The rest of the turn from ``point``: pending tool calls first, then the agent's steps."""
    if point.answered:
        return
    if point.pending_calls and isinstance(agent, LlmAgent):
        # pyright does not match LlmAgent's cached_property to FlowAgent's property.
        tools = agent.flow.tools_for(agent)  # pyright: ignore[reportArgumentType]
        if agent.toolsets:  # no model step ran yet: ask the toolsets for their tools
            await ask_toolsets(agent, ctx, tools)  # pyright: ignore[reportArgumentType]
        event = await execute_function_calls(agent, ctx, point.pending_calls, tools)  # pyright: ignore[reportArgumentType]
        if event is None:
            return
        yield event
        if event.is_final_response() or event.actions.end_invocation:
            return
        target = event.actions.transfer_to_agent
        if target:
            agent = agent.root_agent.find_agent(target) or agent
            ctx = ctx.for_agent(agent)
    events = agent.run_async(ctx)
    try:
        async for event in events:
            yield event
    finally:
        await aclose(events)
