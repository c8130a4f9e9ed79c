"""State scopes (``app:``, ``user:``, ``temp:``, session) behave the same in every store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from steadyflow.events import Event, EventActions
from steadyflow.sessions import BaseSessionService, InMemorySessionService
from steadyflow.sessions.sql import SqlSessionService

pytestmark = pytest.mark.postgres


@pytest.fixture
async def stores(postgres_url: str, tmp_path: Path) -> AsyncIterator[list[BaseSessionService]]:
    sqlite = SqlSessionService(f"sqlite:///{tmp_path / 's.db'}")
    postgres = SqlSessionService(postgres_url)
    yield [InMemorySessionService(), sqlite, postgres]
    await sqlite.close()
    await postgres.close()


async def scope_scenario(service: BaseSessionService) -> dict[str, Any]:
    """Two apps, two users, three sessions writing every scope; what each then sees."""
    created = {
        "a1": await service.create_session(
            app_name="shop", user_id="alice", session_id="a1", state={"user:tier": "gold"}
        ),
        "a2": await service.create_session(
            app_name="shop", user_id="alice", session_id="a2", state={"temp:draft": 1}
        ),
        "b1": await service.create_session(
            app_name="shop", user_id="bob", session_id="b1", state={"app:open": True}
        ),
        "x1": await service.create_session(app_name="blog", user_id="alice", session_id="x1"),
    }
    writes = [
        ("a1", {"cart": [1, 2], "user:tier": "platinum", "temp:scratch": "x"}),
        ("b1", {"app:open": False, "user:tier": "bronze", "app:banner": None}),
        ("a2", {"cart": [], "temp:scratch": "y", "user:lang": "de"}),
        ("x1", {"app:open": "blog-only", "user:lang": "fr"}),
    ]
    for sid, delta in writes:
        await service.append_event(
            created[sid], Event(author="agent", actions=EventActions(state_delta=delta))
        )
    seen: dict[str, Any] = {}
    for sid, session in created.items():
        loaded = await service.get_session(
            app_name=session.app_name, user_id=session.user_id, session_id=sid
        )
        assert loaded is not None
        seen[sid] = {
            "state": loaded.state,
            "deltas": [e.actions.state_delta for e in loaded.events],
            "caller_copy": session.state,
        }
    return seen


async def test_every_store_gives_each_session_the_same_scoped_state(
    stores: list[BaseSessionService],
) -> None:
    memory, sqlite, postgres = [await scope_scenario(s) for s in stores]

    assert sqlite == memory
    assert postgres == memory
    assert memory["a2"]["state"] == {
        "cart": [],
        "user:tier": "platinum",
        "user:lang": "de",
        "app:open": False,
        "app:banner": None,
    }
