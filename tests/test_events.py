"""Events created without actions share one read-only ``NO_ACTIONS``."""

from __future__ import annotations

import copy
import pickle

import pytest

from steadyflow.events import NO_ACTIONS, Event, EventActions
from steadyflow.types import Content, Part


def test_events_created_without_actions_share_the_empty_default() -> None:
    first, second = Event(author="a"), Event(author="b")
    assert first.actions is NO_ACTIONS and second.actions is NO_ACTIONS
    assert Event.model_validate({"author": "a"}).actions is NO_ACTIONS


def test_the_shared_default_refuses_changes_and_says_what_to_do() -> None:
    event = Event(author="a")
    with pytest.raises(TypeError, match=r"actions=EventActions\(\.\.\.\)"):
        event.actions.state_delta["k"] = 1
    with pytest.raises(TypeError, match="read-only"):
        event.actions.state_delta.update(k=1)
    with pytest.raises(TypeError, match="read-only"):
        event.actions.escalate = True
    assert NO_ACTIONS.state_delta == {} and NO_ACTIONS.escalate is None


def test_an_event_given_its_own_actions_can_change_them() -> None:
    event = Event(author="a")
    event.actions = EventActions()
    event.actions.state_delta["k"] = 1
    own = Event(author="a", actions=EventActions(escalate=True))
    own.actions.state_delta["k"] = 2
    assert (event.actions.state_delta, own.actions.state_delta) == ({"k": 1}, {"k": 2})
    assert NO_ACTIONS.state_delta == {}


def test_the_default_equals_fresh_empty_actions_and_survives_copies() -> None:
    event = Event(author="a")
    assert event.actions == EventActions() and EventActions() == event.actions
    assert event.actions != EventActions(escalate=True)
    assert copy.deepcopy(event).actions is NO_ACTIONS
    assert event.model_copy(deep=True).actions is NO_ACTIONS
    assert pickle.loads(pickle.dumps(event)).actions is NO_ACTIONS
    assert Event.model_validate_json(event.model_dump_json()) == event


def test_a_final_response_is_a_complete_event_without_calls_or_results() -> None:
    call = Content.from_parts(Part.from_function_call("f"), role="model")
    result = Content.from_parts(Part.from_function_response("f", {"ok": 1}))
    assert Event(author="a", content=Content.from_text("done", role="model")).is_final_response()
    assert Event(author="a").is_final_response()
    assert not Event(author="a", content=call).is_final_response()
    assert not Event(author="a", content=result).is_final_response()
    assert not Event(author="a", content=Content.from_text("d"), partial=True).is_final_response()
    skip = EventActions(skip_summarization=True)
    assert Event(author="a", content=result, actions=skip).is_final_response()
    assert Event(author="a", content=call, long_running_tool_ids=["c1"]).is_final_response()
