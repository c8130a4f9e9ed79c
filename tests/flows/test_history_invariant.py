"""Whatever the session holds, every provider's strict emulator accepts the request built from it.

Histories are generated (hypothesis) as random interleavings of what real
sessions hold: user messages, single and parallel calls answered at once,
later or never (a crash, a cancelled turn), duplicate and orphan results, a
confirmation pause left unanswered, calls of long-running tools, calls
marked as thoughts, other agents' work on parallel branches and transfers.
The request the contents processor builds from each is turned into each
dialect's body by the adapters' wire code and checked by the emulator:
OpenAI chat, OpenAI responses, Anthropic and Gemini.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.flows.wire import refusals
from tests.history.histories import build_request

from steadyflow import Content, Event, FunctionCall, HistoryPolicy, LlmAgent, Part
from steadyflow.testing import ScriptedLlm
from steadyflow.tools import REQUEST_CONFIRMATION_NAME

AGENT = "a"
EXAMPLES = 250  # about 6 s; a 3,000-history run found nothing more
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _event(author: str, role: str, parts: list[Part], branch: str | None = None) -> Event:
    event = Event(author=author, content=Content(role=role, parts=parts))
    if branch is not None:
        event.branch = branch
    return event


def _call(call_id: str, name: str = "lookup", thought: bool = False) -> Part:
    part = Part(function_call=FunctionCall(id=call_id, name=name, args={"q": call_id}))
    return part.model_copy(update={"thought": True}) if thought else part


def _result(call_id: str, name: str = "lookup") -> Part:
    return Part.from_function_response(name, {"ok": call_id}, id=call_id)


def _pause(call_id: str) -> Event:
    """A confirmation pause for ``call_id``, as tool dispatch stores it."""
    original = {"id": call_id, "name": "lookup", "args": {"q": call_id}}
    request = FunctionCall(
        id=f"sf-confirm-{call_id}",
        name=REQUEST_CONFIRMATION_NAME,
        args={"original_call": original, "hint": "ok?", "payload": None},
    )
    event = _event(AGENT, "model", [Part(function_call=request)])
    event.long_running_tool_ids = [request.id or ""]
    return event


@st.composite
def _step(draw: st.DrawFn, events: list[Event], open_calls: list[str]) -> None:
    """One thing that can happen next in a session (appended to ``events``)."""
    n = len(events)
    kind = draw(
        st.sampled_from(
            [
                "user", "user", "answer", "calls", "calls", "result", "late", "duplicate",
                "orphan", "pause", "long_running", "thought_call", "branch", "transfer", "other",
            ]
        )
    )  # fmt: skip
    if kind == "user":
        events.append(_event("user", "user", [Part(text=f"message {n}")]))
    elif kind == "answer":
        events.append(_event(AGENT, "model", [Part(text=f"answer {n}")]))
    elif kind in ("calls", "thought_call"):
        ids = [f"c{n}_{j}" for j in range(draw(st.integers(1, 3)))]
        thought = kind == "thought_call"
        events.append(_event(AGENT, "model", [_call(i, thought=thought) for i in ids]))
        answered = draw(st.sampled_from(["all", "some", "none"]))
        if answered != "none":
            done = ids if answered == "all" else ids[: draw(st.integers(0, len(ids) - 1))]
            if done:
                events.append(_event(AGENT, "user", [_result(i) for i in done]))
        open_calls.extend(ids)
    elif kind == "result" and open_calls:  # a result stored late, by itself
        call_id = open_calls.pop(draw(st.integers(0, len(open_calls) - 1)))
        events.append(_event(AGENT, "user", [_result(call_id)]))
    elif kind == "late" and open_calls:  # a long-running tool's result, sent by the user
        call_id = open_calls.pop(draw(st.integers(0, len(open_calls) - 1)))
        events.append(_event("user", "user", [_result(call_id)]))
    elif kind == "duplicate" and open_calls:
        call_id = draw(st.sampled_from(open_calls))
        events.append(_event(AGENT, "user", [_result(call_id), _result(call_id)]))
    elif kind == "orphan":
        events.append(_event(AGENT, "user", [_result(f"gone{n}")]))
    elif kind == "pause":
        call_id = f"p{n}"
        events.append(_event(AGENT, "model", [_call(call_id)]))
        events.append(_pause(call_id))
    elif kind == "long_running":
        call_id = f"w{n}"
        event = _event(AGENT, "model", [_call(call_id, name="wait")])
        event.long_running_tool_ids = [call_id]
        events.append(event)
        if draw(st.booleans()):
            events.append(_event(AGENT, "user", [_result(call_id, name="wait")]))
    elif kind == "branch":  # parallel branches: this agent's and a sibling's work
        for branch, author in (("root.a", AGENT), ("root.b", "b")):
            call_id = f"{branch}{n}"
            events.append(_event(author, "model", [_call(call_id)], branch))
            if draw(st.booleans()):
                events.append(_event(author, "user", [_result(call_id)], branch))
    elif kind == "transfer":
        call_id = f"t{n}"
        transfer = FunctionCall(id=call_id, name="transfer_to_agent", args={"agent_name": "b"})
        events.append(_event(AGENT, "model", [Part(function_call=transfer)]))
        events.append(_event(AGENT, "user", [_result(call_id, "transfer_to_agent")]))
        events.append(_event("b", "model", [Part(text=f"b here {n}")]))
    else:
        events.append(_event("b", "model", [_call(f"b{n}")]))


@st.composite
def sessions(draw: st.DrawFn) -> list[Event]:
    """A session's events: a random interleaving of ``_step``s after a first user message."""
    events = [_event("user", "user", [Part(text="hello")])]
    open_calls: list[str] = []
    for _ in range(draw(st.integers(0, 25))):
        draw(_step(events, open_calls))
    return events


AGENTS = {
    "whole history": LlmAgent(name=AGENT, model=ScriptedLlm([])),
    "last 5 events": LlmAgent(
        name=AGENT, model=ScriptedLlm([]), history=HistoryPolicy(max_events=5)
    ),
    "current turn": LlmAgent(name=AGENT, model=ScriptedLlm([]), include_contents="none"),
}


def _invariant_breaks(contents: list[Content]) -> list[str]:
    """Calls not followed by exactly one response each; responses not after their call."""
    found: list[str] = []
    for index, content in enumerate(contents):
        following = contents[index + 1] if index + 1 < len(contents) else None
        calls = [p.function_call.id or "" for p in content.parts if p.function_call]
        answered = [
            p.function_response.id or ""
            for p in (following.parts if following is not None else [])
            if p.function_response
        ]
        if calls and sorted(calls) != sorted(answered):
            found.append(f"contents[{index}]: calls {calls}, answered {answered}")
    return found


@SETTINGS
@given(sessions(), st.sampled_from(sorted(AGENTS)))
def test_every_dialect_accepts_the_request_built_from_any_history(events, shape):
    request = build_request(AGENTS[shape], events)

    assert refusals(request) == {}
    assert _invariant_breaks(request.contents) == []
