"""Contexts handed to flows, callbacks and tools.

They sit at the bottom of the runtime, below flows and tools, because flows
and tools create them; agents only read them. ``InvocationContext`` is one
invocation's shared state (session, run config, the call budget, counted in attempts);
``CallbackContext`` and ``ToolContext`` are the narrow views that user code
gets, with state writes recorded as a delta on the event being built.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Iterator,
    Mapping,
    MutableMapping,
    Sequence,
)
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from .errors import LlmCallsLimitExceededError
from .events import EventActions
from .plugins._manager import PluginManager
from .run_config import RunConfig
from .sessions.base import BaseSessionService, Session
from .trace_record import InvocationRecorder
from .types import Content
from .usage._meter import UsageMeter

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from ._confirmation import ToolConfirmation
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
    """The invocation's end flag, one object shared by every copy of its context."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = False


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

    def _copy(self) -> InvocationContext:
        """A shallow copy (what ``copy.copy`` makes, without its protocol lookups)."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        return clone


class State(MutableMapping[str, Any]):
    """Session state as user code sees it: reads the session, records writes.

    Writes land in the pending event's ``state_delta`` (and are visible to
    later reads at once); they reach the session when the event is appended.
    Tool calls running side by side also share ``batch``: the writes of every
    call of the batch, so each call reads its siblings' writes at once.
    """

    def __init__(
        self, base: dict[str, Any], delta: dict[str, Any], batch: dict[str, Any] | None = None
    ) -> None:
        self._base = base
        # Reads look at the batch's writes before the session's; writes go to both.
        self._delta = delta
        self._batch = batch

    def __getitem__(self, key: str) -> Any:
        if key in self._delta:
            return self._delta[key]
        if self._batch is not None and key in self._batch:
            return self._batch[key]
        return self._base[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self._delta[key] = value
        if self._batch is not None:
            self._batch[key] = value

    def __delitem__(self, key: str) -> None:
        raise TypeError("state keys cannot be deleted; set the key to None instead")

    def _written(self) -> dict[str, Any]:
        return self._delta if self._batch is None else {**self._batch, **self._delta}

    def __iter__(self) -> Iterator[str]:
        yield from self._base
        yield from (k for k in self._written() if k not in self._base)

    def __len__(self) -> int:
        return len(self._base) + sum(1 for k in self._written() if k not in self._base)

    def to_dict(self) -> dict[str, Any]:
        """A plain dict of the current values."""
        return {**self._base, **self._written()}

    def has_delta(self) -> bool:
        """True when something was written."""
        return bool(self._delta)


class ReadonlyContext:
    """What an instruction provider can see: the invocation, read-only.

    Attributes:
        invocation_context: the running invocation (read-only use expected).
    """

    def __init__(self, invocation_context: InvocationContext) -> None:
        self.invocation_context = invocation_context

    @property
    def state(self) -> Mapping[str, Any]:
        """Session state, read-only."""
        return MappingProxyType(self.invocation_context.session.state)

    @property
    def agent_name(self) -> str:
        """Name of the agent running now."""
        name: str = self.invocation_context.agent.name
        return name

    @property
    def invocation_id(self) -> str:
        """Id of the current invocation."""
        return self.invocation_context.invocation_id

    @property
    def user_content(self) -> Content | None:
        """The user message that started the invocation."""
        return self.invocation_context.user_content

    @property
    def session(self) -> Session:
        """The session (treat as read-only)."""
        return self.invocation_context.session


InstructionProvider = Callable[[ReadonlyContext], "str | Awaitable[str]"]
"""An instruction computed per model call from a ``ReadonlyContext`` (sync or async)."""


class CallbackContext(ReadonlyContext):
    """What a model or agent callback can see and change.

    Attributes:
        step: the trace step number of the model call a model callback
            belongs to (None for agent callbacks).

    ``actions`` and ``state`` are built on first use: most steps and tool
    calls never touch them.
    """

    def __init__(
        self,
        invocation_context: InvocationContext,
        actions: EventActions | None = None,
        *,
        step: int | None = None,
    ) -> None:
        super().__init__(invocation_context)
        self.step = step
        self._actions = actions
        self._state: State | None = None
        self._batch: dict[str, Any] | None = None

    @property
    def actions(self) -> EventActions:
        """The actions of the event being built; state writes go to ``actions.state_delta``."""
        if self._actions is None:
            self._actions = EventActions()
        return self._actions

    @actions.setter
    def actions(self, actions: EventActions) -> None:
        self._actions = actions

    def pending_actions(self) -> EventActions | None:
        """The actions if anything used them yet, else None (nothing was written)."""
        return self._actions

    @property
    def state(self) -> State:
        """Session state with this callback's pending writes."""
        if self._state is None:
            self._state = State(
                self.invocation_context.session.state, self.actions.state_delta, self._batch
            )
        return self._state


class ToolContext(CallbackContext):
    """What a tool function can see and change.

    A tool asks for it by declaring a parameter named ``tool_context``.
    Setting ``actions.transfer_to_agent``, ``actions.escalate`` or
    ``actions.skip_summarization`` steers the flow after the tool runs.

    Attributes:
        tool_confirmation: a person's answer to this call's confirmation
            request (its ``payload`` is what they sent), None when the call
            was never paused for one.
    """

    def __init__(
        self,
        invocation_context: InvocationContext,
        function_call_id: str | None = None,
        actions: EventActions | None = None,
        batch_state: dict[str, Any] | None = None,
        tool_confirmation: ToolConfirmation | None = None,
    ) -> None:
        super().__init__(invocation_context, actions)
        self.function_call_id = function_call_id
        # The state writes of every call in this call's batch (see ``State``).
        self._batch = batch_state
        self.tool_confirmation = tool_confirmation
        self._confirmation_request: tuple[str, Any] | None = None

    def request_confirmation(self, *, hint: str = "", payload: Any = None) -> None:
        """Pause the invocation until a person confirms or declines this call.

        Call it from the tool (or a before-tool callback) and return at once:
        what the tool returns now is dropped, with its state writes. Once the
        person answers, a confirmed call runs the tool again from the start
        with ``tool_confirmation`` set (check it first, so you do not ask
        again); a declined call does not run and the model is told so.

        Args:
            hint: what the person is asked (shown by clients and the viewer).
            payload: JSON data offered to the person (a form to fill, the
                amounts involved); their answer's payload comes back in
                ``tool_confirmation.payload``.
        """
        self._confirmation_request = (hint, payload)

    @property
    def confirmation_request(self) -> tuple[str, Any] | None:
        """The ``(hint, payload)`` this call asked a person about, or None."""
        return self._confirmation_request

    @property
    def idempotency_key(self) -> str:
        """A key for this call, the same across crashes and resumes of its invocation.

        Pass it to APIs that deduplicate requests (payments, tickets), so a
        call run again after a crash (``idempotent=True`` tools) has its
        effect once.
        """
        return f"{self.invocation_context.invocation_id}:{self.function_call_id or ''}"
