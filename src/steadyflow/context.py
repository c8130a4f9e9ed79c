"""Contexts handed to flows, callbacks and tools.

They sit at the bottom of the runtime, below flows and tools, because flows
and tools create them; agents only read them. ``InvocationContext`` is one
invocation's shared state (session, run config, the call budget, counted in attempts);
``CallbackContext`` and ``ToolContext`` are the narrow views that user code
gets, with state writes recorded as a delta on the event being built; they
live in ``_callback_context`` and are re-exported here.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ._callback_context import (
    CallbackContext,
    InstructionProvider,
    ReadonlyContext,
    State,
    ToolContext,
)
from .errors import LlmCallsLimitExceededError
from .plugins._manager import PluginManager
from .run_config import RunConfig
from .sessions.base import BaseSessionService, Session
from .trace_record import InvocationRecorder
from .types import Content
from .usage._meter import UsageMeter

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from ._resume_plan import ResumePlan
    from ._tool_journal import ToolJournal
    from .events import Event
    from .tools.base_tool import BaseTool

__all__ = [
    "AgentNode",
    "CallbackContext",
    "InstructionProvider",
    "InvocationContext",
    "LlmCallBudget",
    "ReadonlyContext",
    "State",
    "ToolContext",
]

logger = logging.getLogger("steadyflow.context")


class AgentNode(Protocol):
    """What the runtime below ``agents/`` reads of an agent: its place in the tree.

    ``BaseAgent`` is one; contexts, tools and flows depend on this protocol,
    so imports point from ``agents/`` down, never back up.
    """

    @property
    def name(self) -> str:
        """The agent's name, unique in its tree."""
        ...

    @property
    def description(self) -> str:
        """What the agent does (other agents read it to transfer)."""
        ...

    @property
    def parent_agent(self) -> AgentNode | None:
        """The agent above this one."""
        ...

    @property
    def root_agent(self) -> AgentNode:
        """The top of the tree."""
        ...

    def find_agent(self, name: str) -> AgentNode | None:
        """This agent or a descendant named ``name``."""
        ...

    def can_transfer_to_parent(self) -> bool:
        """Whether this agent may hand the conversation back to its parent."""
        ...

    def transfer_targets(self) -> Sequence[AgentNode]:
        """The agents this one may transfer to."""
        ...

    def run_async(self, parent_context: InvocationContext) -> AsyncIterator[Event]:
        """Run the agent within the invocation."""
        ...


def tree_path(agent: AgentNode) -> list[str]:
    """The names from the root of ``agent``'s tree down to ``agent`` (a step's ``path``)."""
    path = [agent.name]
    node = agent.parent_agent
    while node is not None:
        path.append(node.name)
        node = node.parent_agent
    return path[::-1]


def new_invocation_id() -> str:
    """A fresh invocation id (``e-`` prefixed, like the events it groups)."""
    return "e-" + os.urandom(16).hex()


class LlmCallBudget:
    """The per-invocation count of provider attempts against ``max_llm_calls``.

    ``increment()`` is called immediately before every provider attempt,
    retries included, and raises once the limit would be passed.
    """

    __slots__ = ("count", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0

    def increment(self) -> None:
        """Count one attempt; raise ``LlmCallsLimitExceededError`` past the limit."""
        if self.limit > 0 and self.count >= self.limit:
            raise LlmCallsLimitExceededError(self.limit)
        self.count += 1


class _Ended:
    """The invocation's end flag, one object shared by every copy of its context.

    False until set on the instance (a class default: made with no ``__init__``
    call, once per invocation).
    """

    value: bool = False


@dataclasses.dataclass(eq=False, kw_only=True)
class InvocationContext:
    """Everything one invocation's flow needs.

    ``agent`` is the agent currently running; a transfer makes a copy for the
    new agent that shares the session, budget and end flag. ``trace`` records
    the invocation's stored trace (shared by every copy); ``agent_span`` is the
    running agent's ``invoke_agent`` span, the parent of its model and tool spans.
    ``plugins`` are the runner's plugins (their hooks run before the agents').
    ``toolset_tools`` holds, per agent name, the tools its toolsets gave for
    the current step (set by the tools processor, read by tool dispatch).
    ``journal`` is the durable tool journal (``steadyflow.durable``), if any.
    ``resume`` is the plan of a turn resumed inside a workflow agent, if any.
    ``usage`` meters tokens and cost against the run's usage and spend limits.
    """

    invocation_id: str
    agent: AgentNode
    session: Session
    session_service: BaseSessionService
    run_config: RunConfig
    user_content: Content | None = None
    branch: str | None = None
    budget: LlmCallBudget
    ended: _Ended = dataclasses.field(default_factory=_Ended)
    live_request_queue: Any = None
    trace: InvocationRecorder = dataclasses.field(default_factory=InvocationRecorder)
    agent_span: Span | None = None
    plugins: PluginManager = dataclasses.field(default_factory=PluginManager)
    toolset_tools: dict[str, dict[str, BaseTool]] = dataclasses.field(default_factory=lambda: {})
    journal: ToolJournal | None = None
    resume: ResumePlan | None = None
    usage: UsageMeter = dataclasses.field(default_factory=UsageMeter)

    @property
    def end_invocation(self) -> bool:
        """Whether an action ended the invocation (seen by every agent's copy at once)."""
        return self.ended.value

    @end_invocation.setter
    def end_invocation(self, value: bool) -> None:
        self.ended.value = value

    def increment_llm_call_count(self) -> None:
        """Count one provider attempt against ``max_llm_calls``."""
        self.budget.increment()

    def for_agent(self, agent: AgentNode, branch: str | None = None) -> InvocationContext:
        """A context for ``agent`` in the same invocation (self when nothing changes)."""
        if agent is self.agent and (branch is None or branch == self.branch):
            return self
        clone = self._copy()
        clone.agent = agent
        if branch is not None:
            clone.branch = branch
        return clone

    def with_agent_span(self, span: Span) -> InvocationContext:
        """A copy for the same agent whose model and tool spans go under ``span``."""
        clone = self._copy()
        clone.agent_span = span
        return clone

    def with_own_end(self) -> InvocationContext:
        """A copy whose end flag is its own (a parallel branch's: its end stops only itself)."""
        clone = self._copy()
        clone.ended = _Ended()
        return clone

    def without_resume(self) -> InvocationContext:
        """A copy whose agents run afresh (a loop's rounds after the resumed one)."""
        if self.resume is None:
            return self
        clone = self._copy()
        clone.resume = None
        return clone

    def _copy(self) -> InvocationContext:
        """A shallow copy (what ``copy.copy`` makes, without its protocol lookups)."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        return clone
