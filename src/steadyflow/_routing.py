"""Which agent answers the next message of a session (the runner asks before each turn).

A function response (a long-running tool's result) goes to the agent that
made the call. Otherwise the authors are walked back from the newest: the
first agent that may keep the conversation answers; with none, the root.
"""

from __future__ import annotations

from .agents.base_agent import BaseAgent
from .events import Event
from .sessions.base import Session

__all__ = ["agent_to_run"]


def _caller_of_responses(root: BaseAgent, events: list[Event]) -> BaseAgent | None:
    """The agent whose call the newest message (a user's) answers, if it holds responses."""
    ids = {r.id for r in events[-1].get_function_responses() if r.id}
    if not ids:
        return None
    for event in reversed(events[:-1]):
        if any(call.id in ids for call in event.get_function_calls()):
            return root.find_agent(event.author)
    return None


def _may_keep_conversation(agent: BaseAgent, root: BaseAgent) -> bool:
    """Whether ``agent`` and every ancestor below the root could hand back to its parent."""
    walker: BaseAgent | None = agent
    while walker is not None and walker is not root:
        if not walker.can_transfer_to_parent():
            return False
        walker = walker.parent_agent
    return True


def agent_to_run(root: BaseAgent, session: Session, message: Event | None = None) -> BaseAgent:
    """The agent that answers the next message of ``session``.

    A function response (a long-running tool's result) goes to the agent
    that made the call. Otherwise the authors are walked back from the
    newest: the first agent that may keep the conversation (it and every
    ancestor up to the root could transfer back to their parent, so the user
    is not stuck with it) answers; with none, the root.
    """
    if not root.sub_agents:
        return root  # every way below ends at the root: it is the only agent
    events = session.events
    if message is not None and message.get_function_responses():
        events = [*events, message]  # not stored yet: the record names the agent first
    if events and events[-1].author == "user":  # most turns follow an agent's answer
        caller = _caller_of_responses(root, events)
        if caller is not None:
            return caller
    for event in reversed(session.events):
        if event.author == "user":
            continue
        agent = root.find_agent(event.author)
        if agent is not None and _may_keep_conversation(agent, root):
            return agent
    return root
