"""``ResumePlan``: the seam between workflow agents and a resumed invocation.

A turn cut short inside a workflow agent (``SequentialAgent``,
``ParallelAgent``, ``LoopAgent``) resumes from the outermost workflow around
the agent that was running: each workflow asks the invocation's plan, when
it has one, which of its sub-agents already finished (they are skipped),
which one was cut short (it continues from its stored events, never
repeating a committed model call or tool), and how many rounds a loop had
started. ``steadyflow.durable`` builds the plan from the invocation's stored
events; an invocation without one (every fresh turn) runs every sub-agent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .context import AgentNode, InvocationContext
    from .events import Event

__all__ = ["ResumePlan"]


class ResumePlan(Protocol):
    """What a workflow agent asks of a resumed invocation (see the module docstring)."""

    def finished(self, agent: AgentNode) -> bool:
        """Whether ``agent``'s run (in the current loop round, inside a loop) had ended."""
        ...

    def rest_of(self, agent: AgentNode, ctx: InvocationContext) -> AsyncIterator[Event] | None:
        """The rest of ``agent``'s run that was cut short; None when it had not started.

        Handed out once per agent: a later run of the same agent (a later
        loop round) starts afresh.
        """
        ...

    def rounds_started(self, loop: AgentNode) -> int:
        """How many rounds of ``loop`` had started before the turn was cut short."""
        ...
