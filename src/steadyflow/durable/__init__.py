"""Durable invocations: records, resume, the tool journal, leases.

An invocation is a stored record (``steadyflow.sessions.InvocationRecord``)
that says where the turn stands and who runs it. This package holds the
logic around that record; the runner and the flow call into it through
small hooks. See docs/durability.md for what is
promised and what is not.
"""

from __future__ import annotations

from ._confirm import Taker, answers_taker, check_answers, take_answers
from ._keeper import INTERRUPTED_RESPONSE, RecordKeeper
from ._plan import rest_of_invocation
from ._records import SHUTTING_DOWN, current_owner, ended_status, finish_record, start_record
from ._renewer import LeaseRenewer, Renewable
from ._resume import (
    ResumePoint,
    claim,
    claim_taker,
    is_free,
    owner_alive,
    resumable,
    resume_point,
    resumed_events,
)
from ._supersede import may_be_waiting, settle_pending
from ._sweep import SweepOutcome, SweepResult, resume_expired, resume_expired_logged

__all__ = [
    "INTERRUPTED_RESPONSE",
    "LeaseRenewer",
    "RecordKeeper",
    "Renewable",
    "ResumePoint",
    "SHUTTING_DOWN",
    "SweepOutcome",
    "SweepResult",
    "Taker",
    "answers_taker",
    "check_answers",
    "claim",
    "claim_taker",
    "current_owner",
    "ended_status",
    "finish_record",
    "is_free",
    "may_be_waiting",
    "owner_alive",
    "resumable",
    "resume_expired",
    "resume_expired_logged",
    "resume_point",
    "resumed_events",
    "rest_of_invocation",
    "settle_pending",
    "start_record",
    "take_answers",
]
