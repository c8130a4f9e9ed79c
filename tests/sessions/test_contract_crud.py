"""The session contract, part 1: create, get, list, delete (every store)."""

from __future__ import annotations

import pytest

from steadyflow.errors import SessionError
from steadyflow.events import Event
from steadyflow.sessions import BaseSessionService
from steadyflow.types import Content

APP = "app"


async def test_create_session_returns_an_empty_session_at_revision_zero(
    service: BaseSessionService,
) -> None:
    session = await service.create_session(
        app_name=APP, user_id="u1", session_id="s1", state={"k": 1}
    )

    assert (session.id, session.app_name, session.user_id) == ("s1", APP, "u1")
    assert session.state == {"k": 1}
    assert session.events == []
    assert session.revision == 0


async def test_create_session_without_id_gives_each_session_a_new_id(
    service: BaseSessionService,
) -> None:
    first = await service.create_session(app_name=APP, user_id="u1")
    second = await service.create_session(app_name=APP, user_id="u1")

    assert first.id and second.id and first.id != second.id


async def test_create_session_with_an_existing_id_raises_naming_the_session(
    service: BaseSessionService,
) -> None:
    await service.create_session(app_name=APP, user_id="u1", session_id="s1")

    with pytest.raises(SessionError, match="'s1' already exists"):
        await service.create_session(app_name=APP, user_id="u1", session_id="s1")


async def test_get_session_returns_none_for_an_unknown_session(
    service: BaseSessionService,
) -> None:
    assert await service.get_session(app_name=APP, user_id="u1", session_id="nope") is None


async def test_get_session_returns_the_stored_state_and_events_in_order(
    service: BaseSessionService,
) -> None:
    session = await service.create_session(app_name=APP, user_id="u1", state={"k": "v"})
    for i in range(3):
        await service.append_event(session, Event(author="user", content=Content.from_text(f"{i}")))

    loaded = await service.get_session(app_name=APP, user_id="u1", session_id=session.id)

    assert loaded is not None
    assert [e.text for e in loaded.events] == ["0", "1", "2"]
    assert loaded.events == session.events
    assert loaded.state == {"k": "v"}
    assert loaded.revision == 3


async def test_changing_a_loaded_copy_changes_neither_the_store_nor_another_copy(
    service: BaseSessionService,
) -> None:
    session = await service.create_session(app_name=APP, user_id="u1", state={"k": 1})
    await service.append_event(session, Event(author="user", content=Content.from_text("hi")))
    first = await service.get_session(app_name=APP, user_id="u1", session_id=session.id)
    assert first is not None

    first.state["k"] = 2
    first.events.append(Event(author="a"))
    first.revision = 7
    again = await service.get_session(app_name=APP, user_id="u1", session_id=session.id)

    assert again is not None and type(again) is type(first)
    assert (again.state, again.revision) == ({"k": 1}, 1)
    assert [e.text for e in again.events] == ["hi"]
    assert again.last_update_time == session.last_update_time == session.events[0].timestamp


async def test_get_session_does_not_find_another_users_session(
    service: BaseSessionService,
) -> None:
    await service.create_session(app_name=APP, user_id="u1", session_id="s1")

    assert await service.get_session(app_name=APP, user_id="u2", session_id="s1") is None
    assert await service.get_session(app_name="other", user_id="u1", session_id="s1") is None


async def test_list_sessions_lists_the_apps_sessions_of_one_user_without_events(
    service: BaseSessionService,
) -> None:
    s1 = await service.create_session(app_name=APP, user_id="u1", session_id="s1")
    await service.append_event(s1, Event(author="user", content=Content.from_text("hi")))
    await service.create_session(app_name=APP, user_id="u1", session_id="s2")
    await service.create_session(app_name=APP, user_id="u2", session_id="s3")
    await service.create_session(app_name="other", user_id="u1", session_id="s4")

    mine = await service.list_sessions(app_name=APP, user_id="u1")
    everyone = await service.list_sessions(app_name=APP)

    assert sorted(s.id for s in mine) == ["s1", "s2"]
    assert sorted(s.id for s in everyone) == ["s1", "s2", "s3"]
    assert all(s.events == [] for s in everyone)
    assert {s.id: s.revision for s in mine} == {"s1": 1, "s2": 0}


async def test_delete_session_removes_the_session_and_its_events(
    service: BaseSessionService,
) -> None:
    session = await service.create_session(app_name=APP, user_id="u1", session_id="s1")
    await service.append_event(session, Event(author="user", content=Content.from_text("hi")))

    await service.delete_session(app_name=APP, user_id="u1", session_id="s1")

    assert await service.get_session(app_name=APP, user_id="u1", session_id="s1") is None
    assert await service.list_sessions(app_name=APP) == []


async def test_delete_session_of_an_absent_session_is_not_an_error(
    service: BaseSessionService,
) -> None:
    await service.delete_session(app_name=APP, user_id="u1", session_id="nope")

    assert await service.list_sessions(app_name=APP) == []


async def test_a_session_recreated_after_delete_starts_empty(
    service: BaseSessionService,
) -> None:
    old = await service.create_session(app_name=APP, user_id="u1", session_id="s1")
    await service.append_event(old, Event(author="user", content=Content.from_text("old")))
    await service.get_session(app_name=APP, user_id="u1", session_id="s1")
    await service.delete_session(app_name=APP, user_id="u1", session_id="s1")
    new = await service.create_session(app_name=APP, user_id="u1", session_id="s1")
    await service.append_event(new, Event(author="user", content=Content.from_text("new")))

    loaded = await service.get_session(app_name=APP, user_id="u1", session_id="s1")

    assert loaded is not None
    assert [e.text for e in loaded.events] == ["new"]


async def test_append_to_a_deleted_session_raises_naming_it(
    service: BaseSessionService,
) -> None:
    session = await service.create_session(app_name=APP, user_id="u1", session_id="s1")
    await service.delete_session(app_name=APP, user_id="u1", session_id="s1")

    with pytest.raises(SessionError, match="'s1' was deleted"):
        await service.append_event(session, Event(author="user"))
