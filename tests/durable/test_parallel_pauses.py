"""A ParallelAgent whose branches each need a confirmation presents every request at once.

Every branch runs until it pauses or finishes (a branch's pause does not cut
its siblings short), the pause events of all branches are stored in the
first turn with what each branch wrote, and answering them all continues
every paused branch.
"""

from __future__ import annotations

import asyncio

from steadyflow import Content, FunctionTool, LlmAgent, ParallelAgent, Runner, ToolContext
from steadyflow.plugins import BasePlugin
from steadyflow.sessions import InvocationStatus
from steadyflow.testing import ScriptedLlm, call
from steadyflow.tools import confirmation_answer, confirmation_requests


class Shop:
    """Two actions that need a person's yes, each logged when it runs."""

    def __init__(self) -> None:
        self.runs: list[str] = []

    def refund(self, order_id: str) -> dict:
        """Refund an order."""
        self.runs.append(f"refund {order_id}")
        return {"refunded": order_id}

    def ship(self, order_id: str) -> dict:
        """Ship an order again."""
        self.runs.append(f"ship {order_id}")
        return {"shipped": order_id}


def note(topic: str, tool_context: ToolContext) -> dict:
    """Note a topic in the session state."""
    tool_context.state[f"noted_{topic}"] = True
    return {"noted": topic}


class PauseSeen(BasePlugin):
    """Signals once the refunds branch's pause event has reached the runner."""

    def __init__(self) -> None:
        super().__init__(name="pause_seen")
        self.refunds_paused = asyncio.Event()

    async def on_event_callback(self, *, invocation_context, event):
        if event.author == "refunds" and confirmation_requests(event):
            self.refunds_paused.set()
        return None


def branch(
    name: str, tool, topic: str, *, after: asyncio.Event | None = None
) -> tuple[LlmAgent, ScriptedLlm]:
    """A branch that notes ``topic`` and calls ``tool``.

    With ``after``, it notes in a step of its own and makes its next model
    call only once ``after`` is set: a sibling's pause comes first.
    """
    confirmed = call(tool.__name__, {"order_id": "7"})
    noted = call("note", {"topic": topic})
    steps = [noted, confirmed] if after else [[noted, confirmed]]
    model = ScriptedLlm([*steps, f"{name} done"])

    async def wait_for_sibling(callback_context, llm_request):
        if after is not None and len(model.requests) == 1:
            await asyncio.wait_for(after.wait(), 10)

    tools = [note, FunctionTool(tool, require_confirmation=True)]
    agent = LlmAgent(name=name, model=model, tools=tools, before_model_callback=wait_for_sibling)
    return agent, model


async def test_both_branches_pause_together_and_both_answers_continue_them(service):
    shop = Shop()
    seen = PauseSeen()
    refunds, refund_model = branch("refunds", shop.refund, "refund")
    shipping, ship_model = branch("shipping", shop.ship, "ship", after=seen.refunds_paused)
    root = ParallelAgent(name="desk", sub_agents=[refunds, shipping])
    runner = Runner(app_name="app", agent=root, session_service=service, plugins=[seen])
    session = await runner.create_session(user_id="u")

    first = [e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="7")]

    requests = [r for e in first for r in confirmation_requests(e)]
    assert sorted(r.call.name for r in requests) == ["refund", "ship"]
    assert shop.runs == []
    (record,) = await service.list_invocations(app_name="app", user_id="u", session_id=session.id)
    assert record.status is InvocationStatus.WAITING
    stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert stored is not None
    paused = sorted(e.author for e in stored.events if confirmation_requests(e))
    assert paused == ["refunds", "shipping"]
    # What each branch wrote before pausing is stored with the pause.
    assert stored.state["noted_ship"] is True and stored.state["noted_refund"] is True
    assert (len(refund_model.requests), len(ship_model.requests)) == (1, 2)

    answers = Content(
        role="user",
        parts=[part for r in requests for part in confirmation_answer(r.id, confirmed=True).parts],
    )
    rest = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message=answers)
    ]

    assert sorted(shop.runs) == ["refund 7", "ship 7"]
    assert sorted(e.text for e in rest if e.text) == ["refunds done", "shipping done"]
    after = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert after is not None
    assert after.state["noted_refund"] is True and after.state["noted_ship"] is True
    (record,) = await service.list_invocations(app_name="app", user_id="u", session_id=session.id)
    assert record.status is InvocationStatus.COMPLETED
    refund_model.assert_complete()
    ship_model.assert_complete()
