"""Durable writes per step: an event and the record go in one commit; tools add little.

A step's events are stored with the record in one write each; a batch of
tool calls adds one write marking them started, and a parallel batch adds
the writes of its results, which siblings completing together share (group
commit). Counted at the store: every write call is one transaction.
"""

from __future__ import annotations

import asyncio

from steadyflow import LlmAgent, Runner
from steadyflow.sessions import InMemorySessionService
from steadyflow.testing import ScriptedLlm, call


class CountingStore(InMemorySessionService):
    """Counts the writes that would each be one commit on a SQL store."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    async def append_event_and_record(self, session, event, record):
        self.writes.append("event")
        return await super().append_event_and_record(session, event, record)

    async def update_invocation(self, record):
        self.writes.append("record")
        await super().update_invocation(record)


async def lookup(order_id: str) -> dict:
    """Look an order up (async: siblings complete in the same turn of the event loop).

    Args:
        order_id: the order.
    """
    return {"order": order_id}


async def slow_lookup(order_id: str) -> dict:
    """Look an order up, slowly.

    Args:
        order_id: the order.
    """
    for _ in range(5):
        await asyncio.sleep(0)
    return {"order": order_id}


async def writes_of(steps, tools) -> list[str]:
    store = CountingStore()
    agent = LlmAgent(name="a", model=ScriptedLlm(steps), tools=tools)
    runner = Runner(app_name="app", agent=agent, session_service=store)
    session = await runner.create_session(user_id="u")
    [e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="go")]
    return store.writes


async def test_a_text_step_writes_nothing_beside_its_event():
    # The user's message, the answer (each with the record), the record closed.
    assert await writes_of(["hi"], []) == ["event", "event", "record"]


async def test_a_tool_step_adds_one_write_marking_the_call_started():
    steps = [call("lookup", {"order_id": "1"}), "done"]
    writes = await writes_of(steps, [lookup])
    assert writes == ["event", "event", "record", "event", "event", "record"]


async def test_parallel_results_completing_together_are_stored_by_one_write():
    steps = [[call("lookup", {"order_id": "1"}), call("lookup", {"order_id": "2"})], "done"]
    writes = await writes_of(steps, [lookup])
    # user, calls, started, both results (one group commit), responses, answer, close
    assert writes == ["event", "event", "record", "record", "event", "event", "record"]


async def test_a_result_completing_before_its_sibling_is_stored_at_once():
    steps = [[call("lookup", {"order_id": "1"}), call("slow_lookup", {"order_id": "2"})], "done"]
    writes = await writes_of(steps, [lookup, slow_lookup])
    assert writes == ["event", "event", "record", "record", "record", "event", "event", "record"]
