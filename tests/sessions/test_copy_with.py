"""``copy_with``: the shallow session copy every in-memory load makes."""

from __future__ import annotations

from steadyflow.events import Event
from steadyflow.sessions import Session
from steadyflow.sessions.base import copy_with


def test_the_copy_has_its_own_state_events_and_fields_set_and_equals_the_original() -> None:
    original = Session(app_name="app", user_id="u", state={"k": 1}, events=[Event(author="a")])
    clone = copy_with(original, dict(original.state), list(original.events))

    assert clone == original and type(clone) is Session
    clone.state["k"] = 2
    clone.events.append(Event(author="b"))
    clone.revision = 7
    assert original.state == {"k": 1} and len(original.events) == 1
    assert original.revision == 0 and "revision" not in original.model_fields_set
    assert clone.model_dump()["revision"] == 7


def test_a_subclass_stays_a_subclass() -> None:
    class Tagged(Session):
        pass

    clone = copy_with(Tagged(app_name="app", user_id="u"), {}, [])

    assert type(clone) is Tagged
