"""``WorkflowResume``: where each agent of a workflow stood when its turn was cut short.

Read from the invocation's stored events alone, like ``resume_point``. An
agent's *window* is the events of the current round of the innermost
``LoopAgent`` around it (all of the invocation's events when no loop is):

- a round of a loop starts at an event of an earlier stage than the event
  before it, or of the same stage when that stage's agent had answered;
- an agent that is not a workflow *finished* when its own events in its
  window end its turn (``resume_point(...).answered``), and it was *cut
  short* when it has events there and did not finish;
- a ``SequentialAgent`` or ``ParallelAgent`` finished when every sub-agent
  did; a ``LoopAgent`` when an event of its current round escalated, or its
  last round (``max_iterations``) had finished.

Before-agent and after-agent callbacks of the workflow agents around the
cut-short agent run again (they are not journaled); model calls and tools
never do: the cut-short agent continues through ``resumed_events``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from .._confirmation import is_confirmation_event
from ..agents.base_agent import BaseAgent
from ..agents.workflow import LoopAgent, ParallelAgent, SequentialAgent
from ..context import AgentNode, InvocationContext
from ..events import Event
from ._resume import ResumePoint, resume_point, resumed_events

__all__ = ["Continuation", "WorkflowResume", "outermost_workflow", "rest_of_invocation"]

_WORKFLOWS = (SequentialAgent, ParallelAgent, LoopAgent)


def outermost_workflow(agent: BaseAgent) -> BaseAgent | None:
    """The highest workflow agent above (or at) ``agent``; None when there is none."""
    found: BaseAgent | None = None
    node: BaseAgent | None = agent
    while node is not None:
        if isinstance(node, _WORKFLOWS):
            found = node
        node = node.parent_agent
    return found


def _names(agent: AgentNode) -> set[str]:
    """The names of ``agent`` and every agent below it."""
    names = {agent.name}
    for sub in agent.sub_agents if isinstance(agent, BaseAgent) else []:
        names |= _names(sub)
    return names


def _stages(loop: BaseAgent) -> dict[str, int]:
    """Each agent name under ``loop``: the index of the sub-agent whose subtree holds it."""
    return {name: index for index, stage in enumerate(loop.sub_agents) for name in _names(stage)}


class WorkflowResume:
    """A ``ResumePlan`` over one invocation's stored events; see the module docstring.

    Args:
        events: the session's events.
        invocation_id: the invocation being resumed.
    """

    def __init__(self, events: list[Event], invocation_id: str) -> None:
        self._invocation_id = invocation_id
        self._events = [
            e
            for e in events
            if e.invocation_id == invocation_id
            and e.author != "user"
            and not is_confirmation_event(e)
        ]
        self._handed_out: set[str] = set()

    def _window_start(self, agent: AgentNode) -> int:
        """Where ``agent``'s window starts: the current round of its innermost loop."""
        node = agent.parent_agent
        while node is not None and not isinstance(node, LoopAgent):
            node = node.parent_agent
        if not isinstance(node, LoopAgent):
            return 0
        return self._current_round(node)[0]

    def _current_round(self, loop: LoopAgent) -> tuple[int, int]:
        """(index of the first event of ``loop``'s current round, rounds started)."""
        start = round_start = self._window_start(loop)
        rounds, previous, answered = 0, None, False
        stages = _stages(loop)
        for index in range(start, len(self._events)):
            event = self._events[index]
            stage = stages.get(event.author)
            if stage is None:
                continue
            if previous is None or stage < previous or (stage == previous and answered):
                round_start, rounds = index, rounds + 1
            direct = loop.sub_agents[stage]
            answered = event.author == direct.name and event.is_final_response()
            previous = stage
        return round_start, rounds

    def _own(self, agent: AgentNode) -> list[Event]:
        """``agent``'s own events in its window."""
        start = self._window_start(agent)
        return [e for e in self._events[start:] if e.author == agent.name]

    def _point(self, agent: AgentNode) -> ResumePoint | None:
        own = self._own(agent)
        return resume_point(own, self._invocation_id) if own else None

    def finished(self, agent: AgentNode) -> bool:
        """See ``ResumePlan.finished``."""
        if isinstance(agent, SequentialAgent | ParallelAgent):
            return all(self.finished(sub) for sub in agent.sub_agents)
        if isinstance(agent, LoopAgent):
            return self._loop_finished(agent)
        point = self._point(agent)
        return point is not None and point.answered

    def _loop_finished(self, loop: LoopAgent) -> bool:
        start, rounds = self._current_round(loop)
        names = _names(loop)
        if any(e.actions.escalate for e in self._events[start:] if e.author in names):
            return True
        last_round = loop.max_iterations is not None and rounds >= loop.max_iterations
        return last_round and bool(loop.sub_agents) and self.finished(loop.sub_agents[-1])

    def rest_of(self, agent: AgentNode, ctx: InvocationContext) -> AsyncIterator[Event] | None:
        """See ``ResumePlan.rest_of``."""
        if isinstance(agent, _WORKFLOWS) or agent.name in self._handed_out:
            return None
        point = self._point(agent)
        if point is None or not isinstance(agent, BaseAgent):
            return None
        self._handed_out.add(agent.name)
        return resumed_events(agent, ctx, point)

    def rounds_started(self, loop: AgentNode) -> int:
        """See ``ResumePlan.rounds_started``."""
        return self._current_round(loop)[1] if isinstance(loop, LoopAgent) else 0


@dataclass(frozen=True, slots=True)
class Continuation:
    """What is left of a resumed invocation.

    Attributes:
        events: its remaining events (lazy: nothing runs before they are read).
        model_next: a model call comes next, so one may have been in flight at
            the crash (the resume counts it as an attempt made).
    """

    events: AsyncIterator[Event]
    model_next: bool


def rest_of_invocation(
    root: BaseAgent, ctx: InvocationContext, events: list[Event], point: ResumePoint
) -> Continuation:
    """What is left of the invocation of ``ctx`` that stopped at ``point``.

    The agent that was running continues; when it runs inside a workflow
    agent, the outermost one around it runs again with a ``WorkflowResume``
    plan, so the stages, branches and rounds it had not finished still run
    (after an agent that had answered, the next agent's model call is next).
    """
    agent = root.find_agent(point.agent_name or "") or root
    workflow = outermost_workflow(agent)
    if workflow is None:
        return Continuation(resumed_events(agent, ctx.for_agent(agent), point), point.model_next)
    plan = WorkflowResume(events, ctx.invocation_id)
    ctx.resume = plan
    model_next = point.model_next or (point.answered and not plan.finished(workflow))
    return Continuation(workflow.run_async(ctx.for_agent(workflow)), model_next)
