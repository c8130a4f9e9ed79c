"""Properties of the history window over random sessions (hypothesis)."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.history.histories import AGENT, build_request, calls, chat, histories, responses, user

from steadyflow import Content, Event, HistoryPolicy, LlmAgent
from steadyflow.flows.processors._contents import event_to_content
from steadyflow.history.tokens import entry_tokens
from steadyflow.testing import ScriptedLlm

pytestmark = pytest.mark.slow  # fuzzing: hypothesis over long sessions

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def entries(events: list[Event]) -> list[tuple[Event, Content]]:
    seen = [(e, event_to_content(e, AGENT, None)) for e in events]
    return [(e, c) for e, c in seen if c is not None]


def sent_entries(events: list[Event], policy: HistoryPolicy) -> list[tuple[Event, Content]]:
    """The session entries the request holds; fails unless they are in session order."""
    agent = LlmAgent(name=AGENT, model=ScriptedLlm([]), history=policy)
    sent = build_request(agent, events, pair=False).contents
    everything = entries(events)
    matched: list[tuple[Event, Content]] = []
    position = len(everything)
    for content in reversed(sent):  # match from the end: the window is a suffix
        position -= 1
        while position >= 0 and everything[position][1] != content:
            position -= 1
        assert position >= 0, f"sent out of session order: {content}"
        matched.append(everything[position])
    return matched[::-1]


def ids(pairs: list[tuple[Event, Content]]) -> tuple[set[str | None], set[str | None]]:
    calls = {c.id for e, _ in pairs for c in e.get_function_calls()}
    responses = {r.id for e, _ in pairs for r in e.get_function_responses()}
    return calls, responses


def check_rules(events: list[Event], sent: list[tuple[Event, Content]]) -> None:
    everything = entries(events)
    sent_calls, sent_responses = ids(sent)
    sent_ids = {e.id for e, _ in sent}
    # a response is never sent without its call, nor a call without every response to it
    assert sent_responses <= sent_calls
    for event, _ in everything:
        if {r.id for r in event.get_function_responses()} & sent_calls:
            assert event.id in sent_ids
    # the current turn is always sent whole, at the end
    last_user = max(i for i, (e, _) in enumerate(everything) if e.author == "user")
    turn = [c for _, c in everything[last_user:]]
    assert [c for _, c in sent[-len(turn) :]] == turn
    assert len({e.id for e, _ in sent}) == len(sent)


def over_cap_only_for_the_rules(events: list[Event], sent: list[tuple[Event, Content]]) -> None:
    """Past the cap, every extra entry is the current turn or a call/response half."""
    everything = entries(events)
    last_user = max(i for i, (e, _) in enumerate(everything) if e.author == "user")
    turn_ids = {e.id for e, _ in everything[last_user:]}
    for event, _ in sent:
        if event.id not in turn_ids:
            assert event.get_function_calls() or event.get_function_responses()


@SETTINGS
@given(histories(), st.integers(1, 30))
def test_an_event_cap_keeps_pairs_together_and_the_current_turn(events, cap):
    sent = sent_entries(events, HistoryPolicy(max_events=cap))
    check_rules(events, sent)
    if len(sent) > cap:
        over_cap_only_for_the_rules(events, sent)


@SETTINGS
@given(histories(), st.integers(1, 3000))
def test_a_token_budget_keeps_pairs_together_and_the_current_turn(events, budget):
    sent = sent_entries(events, HistoryPolicy(max_tokens=budget))
    check_rules(events, sent)
    if sum(entry_tokens(e, c) for e, c in sent) > budget:
        over_cap_only_for_the_rules(events, sent)


# An export started at the very beginning, then 3,000 events of chat and tools.
HEAD = [user("export everything", 0), calls(["export"], 1, name="wait")]
HEAD += [e.model_copy(update={"id": f"h{e.id}"}) for e in chat(1000, tools_every=2)]


@settings(max_examples=25, deadline=None)
@given(histories(max_turns=8), st.integers(5, 40))
def test_a_3000_event_session_sends_a_request_bounded_by_the_cap(tail, cap):
    tail = [e.model_copy(update={"id": f"t{e.id}"}) for e in tail]
    tail.append(responses(["export"], 0, author="user", name="wait").model_copy(update={"id": "r"}))
    events = HEAD + tail

    sent = sent_entries(events, HistoryPolicy(max_events=cap))

    check_rules(events, sent)
    assert len(events) > 3000
    # the cap, or the current turn, plus the one pinned call it answers
    assert len(sent) <= max(cap, 1) + 1


@SETTINGS
@given(histories(), st.integers(1, 30))
def test_every_sent_response_follows_the_content_holding_its_call(events, cap):
    sent = build_request(
        LlmAgent(name=AGENT, model=ScriptedLlm([]), history=HistoryPolicy(max_events=cap)), events
    ).contents
    sent_calls = {
        p.function_call.id: i for i, c in enumerate(sent) for p in c.parts if p.function_call
    }
    answered = [
        (i, p.function_response.id)
        for i, c in enumerate(sent)
        for p in c.parts
        if p.function_response
    ]
    for index, call_id in answered:
        assert sent_calls[call_id] == index - 1
    assert len({call_id for _, call_id in answered}) == len(answered)  # the latest one only
