"""``BaseAgent``: a named node in the agent tree that produces events.

Every agent, model-driven or workflow, runs between its agent callbacks
(the runner's plugins' first, then its own):

- ``before_agent_callback(callback_context)``: a returned ``Content`` answers
  instead of the agent, which then does not run (the invocation goes on: a
  pipeline's next stage still runs);
- ``after_agent_callback(callback_context)``: a returned ``Content`` becomes
  one more event of the agent, after its own; not run when the invocation
  was ended.

State a callback writes is stored on that event (or on an event of its own
when it returned nothing). When an agent raises, in its run or in one of
those callbacks, the plugins' ``on_agent_error_callback`` hears of it once
for that agent, before the error goes on to the agent above it (which
reports it once in turn), as ADK reports it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from .._aio import aclose
from ..context import CallbackContext, InvocationContext
from ..errors import ConfigurationError
from ..events import Event
from ..flows._callbacks import Callbacks, chained, normalize_callbacks, run_callbacks
from ..types import Content

__all__ = ["BaseAgent", "Callback"]

Callback = Callable[..., Any] | Sequence[Callable[..., Any]] | None
"""One callable, a list of them, or None (sync or async callables)."""


class BaseAgent(ABC):
    """An agent: a name, a description, sub-agents, and a way to run.

    An agent belongs to at most one parent; names are unique in a tree
    (``find_agent`` looks them up for transfers).

    Args:
        name: unique name in the agent tree (a Python identifier).
        description: what this agent does (other agents read it to transfer).
        sub_agents: the agents below this one.
        before_agent_callback: ``(callback_context)``; a returned ``Content``
            answers instead of the agent.
        after_agent_callback: ``(callback_context)``; a returned ``Content``
            becomes one more event after the agent's own.
    """

    def __init__(
        self,
        *,
        name: str,
        description: str = "",
        sub_agents: Sequence[BaseAgent] = (),
        before_agent_callback: Callback = None,
        after_agent_callback: Callback = None,
    ) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"agent name must be a Python identifier, got {name!r}")
        if name == "user":
            raise ValueError("agent name 'user' is reserved for the user's messages")
        self.name = name
        self.description = description
        self.before_agent_callbacks = normalize_callbacks(
            before_agent_callback, "before_agent_callback"
        )
        self.after_agent_callbacks = normalize_callbacks(
            after_agent_callback, "after_agent_callback"
        )
        self.parent_agent: BaseAgent | None = None
        self.sub_agents: list[BaseAgent] = []
        seen: set[str] = set()
        for sub in sub_agents:
            if sub.parent_agent is not None:
                raise ValueError(
                    f"agent {sub.name!r} already has parent {sub.parent_agent.name!r}; "
                    f"it cannot also be a sub-agent of {name!r}"
                )
            if sub.name in seen:
                raise ValueError(f"agent {name!r} has two sub-agents named {sub.name!r}")
            seen.add(sub.name)
            sub.parent_agent = self
            self.sub_agents.append(sub)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"

    @property
    def root_agent(self) -> BaseAgent:
        """The top of this agent's tree."""
        agent: BaseAgent = self
        while agent.parent_agent is not None:
            agent = agent.parent_agent
        return agent

    def find_agent(self, name: str) -> BaseAgent | None:
        """This agent or a descendant named ``name``."""
        if self.name == name:
            return self
        for sub in self.sub_agents:
            found = sub.find_agent(name)
            if found is not None:
                return found
        return None

    def can_transfer_to_parent(self) -> bool:
        """Whether this agent may hand the conversation back to its parent."""
        return False

    def transfer_targets(self) -> list[BaseAgent]:
        """Agents this one may transfer to (none for a plain agent)."""
        return []

    def run_async(self, parent_context: InvocationContext) -> AsyncIterator[Event]:
        """Run this agent within the invocation, yielding its events."""
        # The runner's context is this agent's already (the root): no call then.
        ctx = parent_context if parent_context.agent is self else parent_context.for_agent(self)
        if not (
            self.before_agent_callbacks or self.after_agent_callbacks or ctx.plugins.plugins
        ):  # most agents: no callbacks, no plugins, nothing to chain
            # Returned, not re-yielded: each generator layer costs on every event.
            return self._run_async_impl(ctx)
        before = chained(ctx, "before_agent_callback", self.before_agent_callbacks)
        after = chained(ctx, "after_agent_callback", self.after_agent_callbacks)
        return self._run_with_callbacks(ctx, before, after)

    def _run_with_callbacks(
        self, ctx: InvocationContext, before: Callbacks, after: Callbacks
    ) -> AsyncIterator[Event]:
        """The agent between its callbacks; wrapped to report its errors when a plugin listens."""
        events = self._run_between_callbacks(ctx, before, after)
        if not ctx.plugins.hooks("on_agent_error_callback"):
            return events
        return self._reporting_errors(ctx, events)

    async def _reporting_errors(
        self, ctx: InvocationContext, events: AsyncIterator[Event]
    ) -> AsyncIterator[Event]:
        """``events``, telling the plugins when this agent's layer raised (then re-raising)."""
        try:
            async for event in events:
                yield event
        except Exception as error:
            await ctx.plugins.notify(
                "on_agent_error_callback",
                agent=self,
                callback_context=CallbackContext(ctx),
                error=error,
            )
            raise
        finally:
            await aclose(events)

    async def _run_between_callbacks(
        self, ctx: InvocationContext, before: Callbacks, after: Callbacks
    ) -> AsyncIterator[Event]:
        if before:
            event, answered = await self._agent_callback_event(ctx, before)
            if event is not None:
                yield event
            if answered:
                return
        events = self._run_async_impl(ctx)
        try:
            async for event in events:
                yield event
        finally:
            await aclose(events)
        if after and not ctx.end_invocation:
            event, _ = await self._agent_callback_event(ctx, after)
            if event is not None:
                yield event

    async def _agent_callback_event(
        self, ctx: InvocationContext, callbacks: Callbacks
    ) -> tuple[Event | None, bool]:
        """Run agent callbacks: the event they produced (if any) and whether one answered."""
        callback_context = CallbackContext(ctx)
        answer = await run_callbacks(callbacks, callback_context=callback_context)
        if answer is not None and not isinstance(answer, Content):
            raise ConfigurationError(
                f"agent callbacks of {self.name!r} must return a Content or None, got {answer!r}"
            )
        actions = callback_context.pending_actions()
        if answer is None and actions is None:
            return None, False
        event = Event(invocation_id=ctx.invocation_id, author=self.name, branch=ctx.branch)
        if answer is not None:
            event.content = answer.model_copy(update={"role": "model"})
        if actions is not None:
            event.actions = actions
        return event, answer is not None

    def run_live(self, parent_context: InvocationContext) -> AsyncIterator[Event]:
        """Run this agent on a live connection (``StreamingMode.BIDI``)."""
        ctx = parent_context.for_agent(self)
        events = self._run_live_impl(ctx)
        if not ctx.plugins.hooks("on_agent_error_callback"):
            return events
        return self._reporting_errors(ctx, events)

    @abstractmethod
    def _run_async_impl(self, ctx: InvocationContext) -> AsyncIterator[Event]:
        """The agent's own behaviour."""

    def _run_live_impl(self, ctx: InvocationContext) -> AsyncIterator[Event]:
        raise NotImplementedError(f"{type(self).__name__} does not support live runs")
