"""The session contract, part 2: appending events and their state (every store)."""

from __future__ import annotations

import pytest

from steadyflow.errors import StaleSessionError
from steadyflow.events import Event, EventActions
from steadyflow.sessions import BaseSessionService, Session
from steadyflow.types import Content, Part, UsageMetadata

APP = "app"


def delta_event(delta: dict[str, object], text: str = "x") -> Event:
    return Event(
        author="agent",
        content=Content.from_text(text, role="model"),
        actions=EventActions(state_delta=dict(delta)),
    )


async def reload(service: BaseSessionService, session: Session) -> Session:
    loaded = await service.get_session(
        app_name=session.app_name, user_id=session.user_id, session_id=session.id
    )
    assert loaded is not None
    return loaded


async def test_append_event_bumps_the_revision_and_updates_the_callers_copy(
    service: BaseSessionService,
) -> None:
    session = await service.create_session(app_name=APP, user_id="u1")
    event = delta_event({"k": 1})

    stored = await service.append_event(session, event)

    assert stored.id == event.id
    assert session.revision == 1
    assert session.events == [stored]
    assert session.state["k"] == 1
    assert session.last_update_time == event.timestamp


async def test_partial_events_are_returned_but_not_stored(service: BaseSessionService) -> None:
    session = await service.create_session(app_name=APP, user_id="u1")
    partial = Event(author="agent", content=Content.from_text("hel"), partial=True)

    returned = await service.append_event(session, partial)

    assert returned is partial
    assert session.revision == 0
    assert (await reload(service, session)).events == []


async def test_temp_state_stays_in_the_callers_copy_but_is_never_stored(
    service: BaseSessionService,
) -> None:
    session = await service.create_session(app_name=APP, user_id="u1", state={"temp:a": 1})

    stored = await service.append_event(session, delta_event({"temp:b": 2, "k": 3}))

    assert session.state["temp:b"] == 2
    assert stored.actions.state_delta == {"k": 3}
    loaded = await reload(service, session)
    assert loaded.state == {"k": 3}
    assert loaded.events[0].actions.state_delta == {"k": 3}


async def test_app_state_is_shared_by_every_session_of_the_app(
    service: BaseSessionService,
) -> None:
    alice = await service.create_session(app_name=APP, user_id="alice")
    bob = await service.create_session(app_name=APP, user_id="bob")
    other_app = await service.create_session(app_name="other", user_id="alice")

    await service.append_event(alice, delta_event({"app:mode": "busy"}))

    assert (await reload(service, bob)).state == {"app:mode": "busy"}
    assert (await reload(service, other_app)).state == {}


async def test_user_state_is_shared_by_one_users_sessions_only(
    service: BaseSessionService,
) -> None:
    first = await service.create_session(app_name=APP, user_id="alice")
    second = await service.create_session(app_name=APP, user_id="alice")
    bob = await service.create_session(app_name=APP, user_id="bob")

    await service.append_event(first, delta_event({"user:name": "Alice"}))

    assert (await reload(service, second)).state == {"user:name": "Alice"}
    assert (await reload(service, bob)).state == {}


async def test_create_session_state_goes_to_its_scope(service: BaseSessionService) -> None:
    await service.create_session(
        app_name=APP, user_id="alice", state={"app:a": 1, "user:u": 2, "s": 3, "temp:t": 4}
    )

    later = await service.create_session(app_name=APP, user_id="alice")
    bob = await service.create_session(app_name=APP, user_id="bob")

    assert later.state == {"app:a": 1, "user:u": 2}
    assert bob.state == {"app:a": 1}


async def test_session_state_is_not_shared_between_sessions(service: BaseSessionService) -> None:
    first = await service.create_session(app_name=APP, user_id="alice")
    second = await service.create_session(app_name=APP, user_id="alice")

    await service.append_event(first, delta_event({"topic": "billing"}))

    assert (await reload(service, first)).state == {"topic": "billing"}
    assert (await reload(service, second)).state == {}


async def test_appending_the_same_event_twice_stores_it_once(service: BaseSessionService) -> None:
    session = await service.create_session(app_name=APP, user_id="u1")
    event = delta_event({"n": 1})

    await service.append_event(session, event)
    await service.append_event(session, event)

    loaded = await reload(service, session)
    assert [e.id for e in loaded.events] == [event.id]
    assert loaded.revision == 1


async def test_appending_a_stored_event_through_an_older_copy_is_a_no_op(
    service: BaseSessionService,
) -> None:
    session = await service.create_session(app_name=APP, user_id="u1")
    older = await reload(service, session)
    event = delta_event({"n": 1})
    await service.append_event(session, event)

    returned = await service.append_event(older, event)

    assert returned.id == event.id
    assert [e.id for e in (await reload(service, session)).events] == [event.id]


async def test_appending_through_a_stale_copy_raises_naming_the_session(
    service: BaseSessionService,
) -> None:
    session = await service.create_session(app_name=APP, user_id="u1", session_id="s1")
    mine = await reload(service, session)
    theirs = await reload(service, session)
    await service.append_event(theirs, delta_event({"who": "them"}))

    with pytest.raises(StaleSessionError, match="'s1'") as caught:
        await service.append_event(mine, delta_event({"who": "me", "app:x": 1, "user:y": 2}))

    assert (caught.value.session_id, caught.value.expected_revision) == ("s1", 0)
    assert caught.value.actual_revision == 1


async def test_a_rejected_stale_append_stores_neither_its_event_nor_its_state(
    service: BaseSessionService,
) -> None:
    session = await service.create_session(app_name=APP, user_id="u1")
    mine = await reload(service, session)
    theirs = await reload(service, session)
    await service.append_event(theirs, delta_event({"who": "them"}, text="theirs"))
    with pytest.raises(StaleSessionError):
        await service.append_event(mine, delta_event({"who": "me", "app:x": 1, "user:y": 2}))

    loaded = await reload(service, session)

    assert [e.text for e in loaded.events] == ["theirs"]
    assert loaded.state == {"who": "them"}
    assert mine.revision == 0 and mine.events == []


async def test_a_reloaded_copy_can_append_after_a_conflict(service: BaseSessionService) -> None:
    session = await service.create_session(app_name=APP, user_id="u1")
    stale = await reload(service, session)
    await service.append_event(session, delta_event({}, text="first"))
    with pytest.raises(StaleSessionError):
        await service.append_event(stale, delta_event({}, text="lost"))

    fresh = await reload(service, session)
    await service.append_event(fresh, delta_event({}, text="second"))

    assert [e.text for e in (await reload(service, session)).events] == ["first", "second"]


async def test_every_event_field_survives_storage(service: BaseSessionService) -> None:
    session = await service.create_session(app_name=APP, user_id="u1")
    call = Part.from_function_call("lookup", {"order": 7, "tags": ["a", None]}, id="c1")
    event = Event(
        author="agent",
        invocation_id="inv-1",
        branch="root.child",
        content=Content.from_parts(
            Part.from_text("see image"),
            Part.from_bytes(b"\x89PNG\x00\xff", "image/png"),
            call,
            Part.from_function_response("lookup", {"status": "shipped"}, id="c1"),
            role="model",
        ),
        actions=EventActions(state_delta={"k": None, "nested": {"a": [1, 2.5]}}, escalate=True),
        long_running_tool_ids=["c1"],
        usage_metadata=UsageMetadata(input_tokens=3, output_tokens=4, total_tokens=7),
        custom_metadata={"trace": "abc", "n": 1},
        finish_reason="STOP",
        model_version="m-1",
    )
    await service.append_event(session, event)

    loaded = await reload(service, session)

    assert loaded.events == [event]
    assert loaded.state == {"k": None, "nested": {"a": [1, 2.5]}}
