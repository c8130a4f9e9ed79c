"""Events: each has its own actions, empty by default; what a final response is."""

from __future__ import annotations

import copy
import pickle

from steadyflow.events import Event, EventActions
from steadyflow.types import Content, Part


def test_each_event_created_without_actions_has_its_own_empty_actions() -> None:
    first, second = Event(author="a"), Event(author="b")
    assert first.actions == EventActions() and first.actions.is_empty()
    assert first.actions is not second.actions
    assert first.actions.state_delta is not second.actions.state_delta
    assert Event.model_validate({"author": "a"}).actions == EventActions()


def test_the_default_actions_can_be_changed_in_place_without_touching_other_events() -> None:
    event, other = Event(author="a"), Event(author="b")
    event.actions.state_delta["k"] = 1
    event.actions.escalate = True
    assert event.actions == EventActions(state_delta={"k": 1}, escalate=True)
    assert other.actions == EventActions() and Event(author="c").actions.state_delta == {}


def test_an_event_given_its_own_actions_can_change_them() -> None:
    event = Event(author="a")
    event.actions = EventActions()
    event.actions.state_delta["k"] = 1
    own = Event(author="a", actions=EventActions(escalate=True))
    own.actions.state_delta["k"] = 2
    assert (event.actions.state_delta, own.actions.state_delta) == ({"k": 1}, {"k": 2})


def test_empty_actions_survive_copies_and_are_left_out_of_a_dump_that_drops_defaults() -> None:
    event = Event(author="a")
    for copied in (
        copy.deepcopy(event),
        event.model_copy(deep=True),
        pickle.loads(pickle.dumps(event)),
        Event.model_validate_json(event.model_dump_json()),
    ):
        assert copied == event and copied.actions is not event.actions
    assert "actions" not in event.model_dump(exclude_defaults=True)


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
