"""The runner on a SQL store: what a caller receives is already in the database."""

from __future__ import annotations

from pathlib import Path

from steadyflow import LlmAgent, Runner
from steadyflow.sessions.sql import SqlSessionService
from steadyflow.testing import ScriptedLlm, call

APP = "app"


def lookup(order_id: str) -> dict[str, str]:
    """Look an order up."""
    return {"order_id": order_id, "status": "shipped"}


async def test_every_event_the_runner_yields_is_already_stored(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sessions.db'}"
    service = SqlSessionService(url)
    model = ScriptedLlm([call("lookup", {"order_id": "7"}), "It has shipped."])
    runner = Runner(
        app_name=APP,
        agent=LlmAgent(name="support", model=model, tools=[lookup]),
        session_service=service,
    )
    session = await service.create_session(app_name=APP, user_id="u1")
    observer = SqlSessionService(url, cache_max_events=0)  # another reader, no cache
    stored_when_yielded = []

    async for event in runner.run_async(user_id="u1", session_id=session.id, new_message="where?"):
        seen = await observer.get_session(app_name=APP, user_id="u1", session_id=session.id)
        assert seen is not None
        stored_when_yielded.append(event.id in {e.id for e in seen.events})

    await observer.close()
    await service.close()
    assert stored_when_yielded == [True, True, True]  # call, tool result, answer
