"""Resuming every expired invocation of an app: for cron, a supervisor, a server starting up.

``resume_expired`` lists the app's unfinished invocations across all its
sessions (``list_unfinished_invocations``, one query on the SQL stores) and
resumes, one after the other, each one that may be taken: interrupted, or
running with its lease expired or its same-host owner gone (``is_free``).
A live one is left alone, and so is one waiting for a person. Each
invocation found yields one ``SweepOutcome``; a resume that fails does not
stop the others, and neither does a record that cannot be read (a journal
that is not JSON, a negative counter): it is skipped and reported as
``CORRUPT``, never resumed from numbers that cannot be trusted. Two
sweeps racing are safe: the claim is a conditional write, so the second
one reports the invocation as taken.
"""

from __future__ import annotations

import enum
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._aio import aclose
from ..errors import CorruptRecordError, NothingToResumeError, StaleInvocationError
from ..retry import RetryConfig
from ..run_config import RunConfig
from ..sessions.invocations import InvocationRecord, InvocationStatus
from ._resume import is_free

if TYPE_CHECKING:
    from ..runner import Runner

__all__ = ["SweepOutcome", "SweepResult", "resume_expired", "resume_expired_logged"]

logger = logging.getLogger("steadyflow.durable")


class SweepResult(enum.StrEnum):
    """What a sweep did with one unfinished invocation."""

    RESUMED = "resumed"
    """Resumed and run to its end (or to a confirmation it now waits for)."""
    FAILED = "failed"
    """Resumed, and the rest of the turn raised (the record says FAILED)."""
    TAKEN = "taken"
    """Another process resumed it first."""
    LIVE = "live"
    """Its owner is alive and its lease holds: never taken over."""
    WAITING = "waiting"
    """Waiting for a person's confirmation: answering it continues it."""
    CORRUPT = "corrupt"
    """Its record could not be read or trusted: skipped (``detail`` says why)."""


@dataclass(frozen=True, slots=True)
class SweepOutcome:
    """One unfinished invocation and what the sweep did with it.

    Attributes:
        record: the record as the sweep found it (of a corrupt one, only its
            ids: app, user, session and invocation).
        result: see ``SweepResult``.
        detail: the final status of a resumed one, the error of a failed
            one, the owner of a live one, what is wrong with a corrupt one.
    """

    record: InvocationRecord
    result: SweepResult
    detail: str = ""

    def line(self) -> str:
        """One line for a log or a terminal."""
        r = self.record
        where = f"session {r.session_id} (user {r.user_id})"
        detail = f": {self.detail}" if self.detail else ""
        return f"{r.id} {where} {self.result.value}{detail}"


_BAD = frozenset({SweepResult.FAILED, SweepResult.CORRUPT})
"""Outcomes logged as warnings, and that make ``--all-expired`` exit 1."""


async def resume_expired(
    runner: Runner,
    *,
    retry_config: RetryConfig | None = None,
    clock: Callable[[], float] = time.time,
) -> AsyncIterator[SweepOutcome]:
    """Resume each of ``runner``'s app's invocations that may be taken (module docstring).

    Args:
        runner: the runner whose agent continues them (its ``app_name`` is the app swept).
            Corrupt records come first, then the others oldest first.
        retry_config: the retry policy of the resumed turns (default: off).
        clock: wall-clock seconds, to judge leases (injectable for tests).
    """
    found = await runner.session_service.find_unfinished_invocations(app_name=runner.app_name)
    for error in found.corrupt:
        yield _corrupt(error)
    for record in found.records:
        if record.status is InvocationStatus.WAITING:
            yield SweepOutcome(record, SweepResult.WAITING)
        elif not is_free(record, clock()):
            yield SweepOutcome(record, SweepResult.LIVE, f"held by {record.owner}")
        else:
            yield await _resume_one(runner, record, retry_config)


def _corrupt(error: CorruptRecordError) -> SweepOutcome:
    """The outcome of a record that could not be read: its ids, and what is wrong."""
    ids = InvocationRecord(
        id=error.invocation_id,
        app_name=error.app_name,
        user_id=error.user_id,
        session_id=error.session_id,
        agent="",
    )
    return SweepOutcome(ids, SweepResult.CORRUPT, error.reason)


async def _resume_one(
    runner: Runner, record: InvocationRecord, retry_config: RetryConfig | None
) -> SweepOutcome:
    config = RunConfig(
        max_llm_calls=record.max_llm_calls, retry_config=retry_config or RetryConfig.disabled()
    )
    events = runner.resume_async(
        user_id=record.user_id,
        session_id=record.session_id,
        invocation_id=record.id,
        run_config=config,
    )
    try:
        async for _ in events:
            pass
    except (NothingToResumeError, StaleInvocationError) as error:
        return SweepOutcome(record, SweepResult.TAKEN, str(error))
    except Exception as error:
        return SweepOutcome(record, SweepResult.FAILED, f"{type(error).__name__}: {error}")
    finally:
        await aclose(events)
    after = await runner.session_service.get_invocation(
        app_name=record.app_name,
        user_id=record.user_id,
        session_id=record.session_id,
        invocation_id=record.id,
    )
    status = "gone" if after is None else after.status.value
    return SweepOutcome(record, SweepResult.RESUMED, status)


async def resume_expired_logged(runner: Runner, *, retry_config: RetryConfig | None = None) -> None:
    """``resume_expired``, each outcome logged (a failure as a warning); never raises.

    What ``steadyflow serve`` runs in the background at start-up: a store
    that cannot be read is logged, and the server answers regardless.
    """
    try:
        async for outcome in resume_expired(runner, retry_config=retry_config):
            level = logging.WARNING if outcome.result in _BAD else logging.INFO
            logger.log(level, "start-up resume: %s", outcome.line())
    except Exception as error:
        logger.error(
            "start-up resume of app %r stopped: %s: %s",
            runner.app_name,
            type(error).__name__,
            error,
        )
