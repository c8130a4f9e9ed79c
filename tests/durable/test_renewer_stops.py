"""The lease renewer leaves no task behind once its loop has nothing to renew."""

from __future__ import annotations

import asyncio

from steadyflow import InMemoryRunner, LlmAgent
from steadyflow.testing import ScriptedLlm, call


async def lookup(q: str) -> dict:
    """Look something up (the turn gives the event loop a turn here).

    Args:
        q: what.
    """
    await asyncio.sleep(0)
    return {"found": q}


def renewal_tasks() -> list[asyncio.Task[object]]:
    """The lease renewer's unfinished tasks on this loop."""
    return [
        task
        for task in asyncio.all_tasks()
        if getattr(task.get_coro(), "__qualname__", "").startswith("LeaseRenewer.")
    ]


async def settled() -> None:
    """Let cancelled tasks finish (a few loop turns, no time passing)."""
    for _ in range(3):
        await asyncio.sleep(0)


def agent(*steps) -> LlmAgent:
    return LlmAgent(name="a", model=ScriptedLlm(list(steps)), tools=[lookup])


async def test_a_finished_turn_leaves_no_renewal_task():
    runner = InMemoryRunner(agent(call("lookup", {"q": "x"}), "one", call("lookup"), "two"))
    session = await runner.create_session(user_id="u")

    for message in ("first", "second"):  # the second turn starts a new task, and ends it
        seen = []
        async for _event in runner.run_async(
            user_id="u", session_id=session.id, new_message=message
        ):
            seen.append(renewal_tasks())
        assert any(seen)  # the lease was kept while the turn ran
        await settled()
        assert renewal_tasks() == []


async def test_a_turn_stopped_early_leaves_no_renewal_task():
    runner = InMemoryRunner(agent(call("lookup", {"q": "x"}), "never read"))
    session = await runner.create_session(user_id="u")
    events = runner.run_async(user_id="u", session_id=session.id, new_message="go")

    await anext(events)  # the call event; the tool has not run
    await asyncio.sleep(0)
    assert renewal_tasks()
    await events.aclose()
    await settled()

    assert renewal_tasks() == []
