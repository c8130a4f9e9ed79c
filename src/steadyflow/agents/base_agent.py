"""``BaseAgent``: a named node in the agent tree that produces events."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Sequence

from ..context import InvocationContext
from ..events import Event

__all__ = ["BaseAgent"]


class BaseAgent(ABC):
    """An agent: a name, a description, sub-agents, and a way to run.

    An agent belongs to at most one parent; names are unique in a tree
    (``find_agent`` looks them up for transfers).
    """

    def __init__(
        self, *, name: str, description: str = "", sub_agents: Sequence[BaseAgent] = ()
    ) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"agent name must be a Python identifier, got {name!r}")
        if name == "user":
            raise ValueError("agent name 'user' is reserved for the user's messages")
        self.name = name
        self.description = description
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
        # Returned, not re-yielded: each generator layer costs on every event.
        return self._run_async_impl(parent_context.for_agent(self))

    def run_live(self, parent_context: InvocationContext) -> AsyncIterator[Event]:
        """Run this agent on a live connection (``StreamingMode.BIDI``)."""
        return self._run_live_impl(parent_context.for_agent(self))

    @abstractmethod
    def _run_async_impl(self, ctx: InvocationContext) -> AsyncIterator[Event]:
        """The agent's own behaviour."""

    def _run_live_impl(self, ctx: InvocationContext) -> AsyncIterator[Event]:
        raise NotImplementedError(f"{type(self).__name__} does not support live runs")
