"""``ToolJournal``: the seam between tool dispatch and the durable layer.

Tool dispatch (``flows/_functions.py``) asks the invocation's journal, when
it has one, four things: to record that a batch of calls is about to run
(one durable write for the batch), whether a call already has an outcome
from before a crash (its stored result, or an "interrupted" response for a
call that started and never finished), to record a call's result the
moment it completes, and, for a call a person was asked to confirm, their
answer. ``steadyflow.durable`` implements it; an invocation
without one (a bare flow in a test) runs every call as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ._confirmation import ToolConfirmation
from .types import FunctionCall

__all__ = ["KnownOutcome", "ToolJournal"]


@dataclass(frozen=True, slots=True)
class KnownOutcome:
    """A call's outcome from before a resume: the response the model gets, the state it wrote."""

    response: dict[str, Any]
    state_delta: dict[str, Any]


class ToolJournal(Protocol):
    """What tool dispatch needs of the durable layer (see the module docstring)."""

    async def begin(self, calls: list[FunctionCall]) -> None:
        """Record that ``calls`` (one event's) are about to run."""

    def known(self, call: FunctionCall, *, idempotent: bool) -> KnownOutcome | None:
        """The outcome ``call`` already has, or None when it is to run now."""

    def confirmation(self, call: FunctionCall) -> ToolConfirmation | None:
        """A person's answer to ``call``'s confirmation request, None when it had none."""

    async def finished(
        self,
        call: FunctionCall,
        response: dict[str, Any],
        state_delta: dict[str, Any],
        *,
        batch_size: int,
    ) -> None:
        """Record ``call``'s result (the response event that follows stores it too).

        Tool dispatch calls it for the calls of a batch of several only: a
        single call's result is stored with its response event.
        """
