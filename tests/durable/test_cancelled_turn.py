"""A turn cancelled while its tools run leaves a history the next turn can use.

The caller that goes away (a cancelled ``run_async`` task, a client closing
its stream) ends the invocation ``CANCELLED``; each call still running is
stored with an unknown outcome, a parallel sibling that finished with its
result, so the next request pairs every call with one result.
"""

from __future__ import annotations

import asyncio

import pytest

from steadyflow import LlmAgent, Runner, ToolContext
from steadyflow.durable import INTERRUPTED_RESPONSE
from steadyflow.errors import NothingToResumeError
from steadyflow.models import LlmRequest
from steadyflow.sessions import InvocationStatus
from steadyflow.testing import ScriptedLlm, call


class SlowTool:
    """A tool that writes state, then waits until the test cancels the turn."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()

    async def refund(self, order_id: str, tool_context: ToolContext) -> dict:
        """Refund an order (slowly)."""
        tool_context.state["refund_started"] = order_id
        self.entered.set()
        await asyncio.Event().wait()  # never set: only the cancellation ends it
        return {"refunded": order_id}


def lookup(order_id: str, tool_context: ToolContext) -> dict:
    """Look an order up."""
    tool_context.state["looked_up"] = order_id
    return {"order": order_id, "status": "shipped"}


async def quick_lookup(order_id: str, tool_context: ToolContext) -> dict:
    """Look an order up (async: done before its slow sibling starts waiting)."""
    return lookup(order_id, tool_context)


def unpaired_calls(request: LlmRequest) -> list[str]:
    """The calls of the request that have no result after them (empty: valid).

    A call is named by its id, or by its tool's name when the request carries
    no id (steadyflow's own ids are not sent): a result answers the earliest
    open call with its id, or with its name when it has none.
    """
    open_calls: list[tuple[str, str]] = []
    for content in request.contents:
        for part in content.parts:
            if part.function_call is not None:
                open_calls.append((part.function_call.id or "", part.function_call.name))
            elif part.function_response is not None:
                response = part.function_response
                for index, (call_id, name) in enumerate(open_calls):
                    if (response.id and call_id == response.id) or (
                        not response.id and not call_id and name == response.name
                    ):
                        del open_calls[index]
                        break
    return [call_id or name for call_id, name in open_calls]


async def cancel_during_the_tool(runner: Runner, tool: SlowTool, session_id: str) -> None:
    async def turn() -> None:
        async for _ in runner.run_async(user_id="u", session_id=session_id, new_message="refund 7"):
            pass

    task = asyncio.create_task(turn())
    await asyncio.wait_for(tool.entered.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_turn_cancelled_during_a_tool_stores_its_outcome_as_unknown(service):
    tool = SlowTool()
    model = ScriptedLlm([call("refund", {"order_id": "7"}), "Refund 7 may have gone through."])
    agent = LlmAgent(name="a", model=model, tools=[tool.refund])
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await runner.create_session(user_id="u")

    await cancel_during_the_tool(runner, tool, session.id)

    (record,) = await service.list_invocations(app_name="app", user_id="u", session_id=session.id)
    assert record.status is InvocationStatus.CANCELLED
    assert record.journal == {}
    stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert stored is not None
    last = stored.events[-1]
    assert [r.response for r in last.get_function_responses()] == [INTERRUPTED_RESPONSE]
    assert last.author == "a"
    with pytest.raises(NothingToResumeError, match="cancelled"):
        async for _ in runner.resume_async(user_id="u", session_id=session.id):
            pass

    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="well?")
    ]

    assert events[-1].text == "Refund 7 may have gone through."
    assert unpaired_calls(model.requests[-1]) == []
    model.assert_complete()


async def test_a_parallel_batch_cancelled_keeps_the_finished_sibling_result(service):
    tool = SlowTool()
    both = [call("quick_lookup", {"order_id": "7"}), call("refund", {"order_id": "7"})]
    model = ScriptedLlm([both, "Looked up; the refund's outcome is unknown."])
    agent = LlmAgent(name="a", model=model, tools=[quick_lookup, tool.refund])
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await runner.create_session(user_id="u")

    await cancel_during_the_tool(runner, tool, session.id)

    stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert stored is not None
    responses = {r.name: r.response for r in stored.events[-1].get_function_responses()}
    assert responses == {
        "quick_lookup": {"order": "7", "status": "shipped"},
        "refund": INTERRUPTED_RESPONSE,
    }
    assert stored.state["looked_up"] == "7"
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="well?"):
        pass
    assert unpaired_calls(model.requests[-1]) == []


async def test_a_turn_failed_by_a_tool_callback_answers_the_call_it_left(service):
    def broken(tool, args, tool_context, tool_response):
        raise ValueError("the audit log is down")

    model = ScriptedLlm([call("lookup", {"order_id": "7"}), "Sorry, try again."])
    agent = LlmAgent(name="a", model=model, tools=[lookup], after_tool_callback=broken)
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await runner.create_session(user_id="u")
    with pytest.raises(ValueError, match="audit log"):
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="7?"):
            pass
    agent.after_tool_callbacks = ()  # fixed before the next message

    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="again"):
        pass

    (record, _) = await service.list_invocations(app_name="app", user_id="u", session_id=session.id)
    assert record.status is InvocationStatus.FAILED
    assert unpaired_calls(model.requests[-1]) == []
