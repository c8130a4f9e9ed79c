"""The views of an invocation that user code gets: state, callback and tool contexts.

Split from ``context`` so that module keeps the invocation's own state
(``InvocationContext``, the call budget, the agent protocol) while this one
holds what instruction providers, callbacks and tools see of it, with state
writes recorded as a delta on the event being built. ``steadyflow.context``
re-exports every name here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping, MutableMapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .events import EventActions

if TYPE_CHECKING:
    from ._confirmation import ToolConfirmation
    from .context import InvocationContext
    from .sessions.base import Session
    from .types import Content

__all__ = [
    "CallbackContext",
    "InstructionProvider",
    "ReadonlyContext",
    "State",
    "ToolContext",
]


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
    def user_id(self) -> str:
        """Id of the user whose session this is (as ADK's ``ReadonlyContext.user_id``)."""
        return self.invocation_context.session.user_id

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
        # ReadonlyContext's one attribute, set here: one call less per model call.
        self.invocation_context = invocation_context
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
        # CallbackContext's attributes, set here: one call less per tool call.
        self.invocation_context = invocation_context
        self.step: int | None = None
        self._actions = actions
        self._state: State | None = None
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
