"""Workflow agents: sub-agents run in a fixed order, in parallel, or in a loop.

They call no model themselves; their sub-agents (``LlmAgent``s or other
workflow agents) do, in the same invocation: one ``max_llm_calls`` budget,
one retry policy, one trace. Each opens its own ``invoke_agent`` span, so
its sub-agents' spans nest under it, and the trace's steps carry the path
of agents that ran them.

- ``SequentialAgent``: each sub-agent in turn; each sees what the earlier
  ones produced (every branch of an earlier ``ParallelAgent`` included).
- ``ParallelAgent``: every sub-agent at once, each on its own branch (it
  does not see its siblings' work); events come out as they are produced.
  The first failure cancels the others and propagates. A branch that ends
  the invocation (a pause for confirmation, ``end_invocation``) ends only
  itself: its siblings run until they pause or finish, so every pending
  confirmation request is presented in the same turn, and the invocation
  ends once all branches have.
- ``LoopAgent``: the sub-agents in turn, again and again, until one
  escalates (``steadyflow.tools.exit_loop``, or ``actions.escalate``), the
  invocation ends, or ``max_iterations`` rounds ran.

A stage under a workflow agent never transfers to its parent or peers (the
order is the workflow's), and the next user message starts the workflow
again from its root.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from .._aio import aclose
from ..context import AgentNode, InvocationContext
from ..events import Event
from ..flows._span import AgentSpan
from ._parallel import merge_branches
from .base_agent import BaseAgent, Callback

__all__ = ["LoopAgent", "ParallelAgent", "SequentialAgent"]


class _WorkflowAgent(BaseAgent):
    """The span the three workflow agents run their sub-agents in."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncIterator[Event]:
        with AgentSpan(self.name, ctx) as ctx:
            events = self._run_sub_agents(ctx)
            try:
                async for event in events:
                    yield event
            finally:
                await aclose(events)

    def _run_sub_agents(self, ctx: InvocationContext) -> AsyncIterator[Event]:
        raise NotImplementedError


@dataclass
class _Round:
    """One loop round's outcome: whether an event escalated."""

    escalated: bool = False


async def _nothing() -> AsyncIterator[Event]:
    return
    yield  # an async generator with no events


def _enter(agent: AgentNode, ctx: InvocationContext) -> AsyncIterator[Event]:
    """``agent``'s run; in a resumed turn, only what it had not done yet.

    A sub-agent that had finished yields nothing, the one that was cut short
    continues from its stored events (see ``ResumePlan``), any other runs.
    """
    plan = ctx.resume
    if plan is not None:
        if plan.finished(agent):
            return _nothing()
        rest = plan.rest_of(agent, ctx)
        if rest is not None:
            return rest
    return agent.run_async(ctx)


async def _run_in_turn(
    agents: Sequence[BaseAgent], ctx: InvocationContext, loop_round: _Round | None = None
) -> AsyncIterator[Event]:
    """Each agent in order; stops when the invocation ends.

    In a loop's round (``loop_round`` given) it also stops after the agent
    one of whose events escalated, and records that in ``loop_round``.
    """
    for agent in agents:
        events = _enter(agent, ctx)
        try:
            async for event in events:
                yield event
                if loop_round is not None and event.actions.escalate:
                    loop_round.escalated = True
        finally:
            await aclose(events)
        if ctx.end_invocation or (loop_round is not None and loop_round.escalated):
            return


class SequentialAgent(_WorkflowAgent):
    """Runs its sub-agents one after another, once each.

    Args:
        name: unique name in the agent tree.
        sub_agents: the stages, in order.
        description: what the pipeline does (for a parent that transfers to it).
        before_agent_callback: see ``BaseAgent``.
        after_agent_callback: see ``BaseAgent``.
    """

    def _run_sub_agents(self, ctx: InvocationContext) -> AsyncIterator[Event]:
        return _run_in_turn(self.sub_agents, ctx)


class ParallelAgent(_WorkflowAgent):
    """Runs its sub-agents concurrently, each on its own branch.

    A sub-agent's branch is ``<branch>.<sub-agent>`` (``<this agent>.<sub-agent>``
    at the top): its contents show the shared history and its own work, not
    its siblings'. Each event is stored before its branch goes on, so a
    branch's next model call sees its own earlier events.
    """

    async def _run_sub_agents(self, ctx: InvocationContext) -> AsyncIterator[Event]:
        prefix = ctx.branch or self.name
        branches = [
            (sub, ctx.for_agent(sub, f"{prefix}.{sub.name}").with_own_end())
            for sub in self.sub_agents
        ]
        events = merge_branches(branches, _enter)
        try:
            async for event in events:
                yield event
        finally:
            await aclose(events)
        if any(branch.end_invocation for _, branch in branches):
            ctx.end_invocation = True  # every branch ran to its end first


class LoopAgent(_WorkflowAgent):
    """Runs its sub-agents in turn, repeatedly, until one escalates.

    Args:
        name: unique name in the agent tree.
        sub_agents: one round's agents, in order.
        max_iterations: the most rounds to run; None: until an escalation
            (give the loop's agents ``steadyflow.tools.exit_loop``) or the
            invocation's ``max_llm_calls`` budget ends it.
        description: what the loop does.
        before_agent_callback: see ``BaseAgent``.
        after_agent_callback: see ``BaseAgent``.
    """

    def __init__(
        self,
        *,
        name: str,
        sub_agents: Sequence[BaseAgent],
        max_iterations: int | None = None,
        description: str = "",
        before_agent_callback: Callback = None,
        after_agent_callback: Callback = None,
    ) -> None:
        if max_iterations is not None and (
            not isinstance(max_iterations, int)
            or isinstance(max_iterations, bool)
            or max_iterations < 1
        ):
            raise ValueError(
                f"max_iterations must be a positive int or None, got {max_iterations!r}"
            )
        super().__init__(
            name=name,
            sub_agents=sub_agents,
            description=description,
            before_agent_callback=before_agent_callback,
            after_agent_callback=after_agent_callback,
        )
        self.max_iterations = max_iterations

    async def _run_sub_agents(self, ctx: InvocationContext) -> AsyncIterator[Event]:
        rounds = 0
        if ctx.resume is not None:  # the round that was cut short goes on, and counts
            if ctx.resume.finished(self):
                return
            rounds = max(ctx.resume.rounds_started(self) - 1, 0)
        while self.sub_agents and (self.max_iterations is None or rounds < self.max_iterations):
            rounds += 1
            loop_round = _Round()
            events = _run_in_turn(self.sub_agents, ctx, loop_round)
            try:
                async for event in events:
                    yield event
            finally:
                await aclose(events)
            if loop_round.escalated or ctx.end_invocation:
                return
            ctx = ctx.without_resume()  # the next rounds start afresh
