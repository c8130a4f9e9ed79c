"""Sessions for the history tests: scripted shapes and random ones (hypothesis)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from hypothesis import strategies as st

from steadyflow import Content, Event, FunctionCall, LlmAgent, Part, RunConfig, UsageMetadata
from steadyflow.context import InvocationContext, LlmCallBudget
from steadyflow.flows.processors import ContentsProcessor
from steadyflow.models import LlmRequest
from steadyflow.sessions.base import Session
from steadyflow.sessions.in_memory import InMemorySessionService

AGENT = "a"


def user(text: str, index: int) -> Event:
    return Event(id=f"e{index}", author="user", content=Content.from_text(text))


def said(text: str, index: int, author: str = AGENT, output_tokens: int | None = None) -> Event:
    usage = None
    if output_tokens is not None:
        usage = UsageMetadata(input_tokens=1, output_tokens=output_tokens)
    return Event(
        id=f"e{index}",
        author=author,
        content=Content.from_text(text, role="model"),
        usage_metadata=usage,
    )


def calls(ids: Sequence[str], index: int, name: str = "lookup") -> Event:
    parts = [Part(function_call=FunctionCall(id=i, name=name, args={"q": i})) for i in ids]
    return Event(id=f"e{index}", author=AGENT, content=Content(role="model", parts=parts))


def responses(ids: Sequence[str], index: int, author: str = AGENT, name: str = "lookup") -> Event:
    parts = [Part.from_function_response(name, {"ok": i}, id=i) for i in ids]
    return Event(id=f"e{index}", author=author, content=Content(role="user", parts=parts))


def chat(turns: int, tools_every: int = 0) -> list[Event]:
    """``turns`` turns of user question and answer; every ``tools_every``-th has a tool call."""
    events: list[Event] = []
    for turn in range(turns):
        events.append(user(f"question {turn}", len(events)))
        if tools_every and turn % tools_every == 0:
            events.append(calls([f"c{turn}"], len(events)))
            events.append(responses([f"c{turn}"], len(events)))
        events.append(said(f"answer {turn}", len(events)))
    return events


@st.composite
def histories(draw: st.DrawFn, max_turns: int = 30) -> list[Event]:
    """A plausible session: turns of user messages, parallel and long-running tool calls
    (answered at once, later by the user, or never), other agents' messages, usage numbers."""
    events: list[Event] = []
    pending: list[str] = []
    for _ in range(draw(st.integers(1, max_turns))):
        if pending and draw(st.booleans()):
            answered = pending.pop(draw(st.integers(0, len(pending) - 1)))
            events.append(responses([answered], len(events), author="user", name="wait"))
        else:
            events.append(user("q" * draw(st.integers(1, 400)), len(events)))
        for _ in range(draw(st.integers(0, 3))):
            width = draw(st.integers(1, 3))
            ids = [f"c{len(events)}_{j}" for j in range(width)]
            long_running = draw(st.booleans())
            events.append(calls(ids, len(events), name="wait" if long_running else "lookup"))
            if long_running:
                pending.extend(ids)
                if draw(st.booleans()):  # a "pending" status now, the result later
                    events.append(responses(ids, len(events), name="wait"))
            else:
                events.append(responses(ids, len(events)))
        if draw(st.booleans()):
            filler = "other " * draw(st.integers(1, 50))
            events.append(said(f"{len(events)} {filler}", len(events), author="b"))
        if draw(st.booleans()):
            tokens = draw(st.one_of(st.none(), st.integers(1, 300)))
            events.append(said("a" * draw(st.integers(1, 400)), len(events), output_tokens=tokens))
    return events


def context(
    agent: LlmAgent, events: list[Event], run_config: RunConfig | None = None
) -> InvocationContext:
    run_config = run_config or RunConfig()
    session = Session(id="s", app_name="app", user_id="u", events=events)
    return InvocationContext(
        invocation_id="e-test",
        agent=agent,
        session=session,
        session_service=InMemorySessionService(),
        run_config=run_config,
        budget=LlmCallBudget(run_config.max_llm_calls),
    )


async def process(agent: LlmAgent, events: list[Event], *, pair: bool = True) -> LlmRequest:
    """The request a fresh contents processor builds for ``agent`` over ``events``.

    ``pair=False``: the window in session order, before responses are moved
    next to their calls.
    """
    processor = ContentsProcessor(pair_responses=pair)
    return await processor.process(agent, context(agent, events), LlmRequest())


def build_request(agent: LlmAgent, events: list[Event], *, pair: bool = True) -> LlmRequest:
    """``process`` for sync tests (hypothesis)."""
    return asyncio.run(process(agent, events, pair=pair))
