"""A plain message while a confirmation waits: it supersedes the waiting calls, or is refused."""

from __future__ import annotations

import pytest

from steadyflow import FunctionTool, RunConfig
from steadyflow.errors import ConfirmationError, ConfirmationPendingError
from steadyflow.sessions import InvocationStatus
from steadyflow.testing import ScriptedLlm, call
from steadyflow.tools import LongRunningFunctionTool, confirmation_answer
from tests.flows.wire import refusals

from .test_confirm import Bank, requests_in, run, runner_for
from .test_resume import responses_seen, stored


async def test_a_new_message_supersedes_the_waiting_call_and_the_model_is_told(service):
    bank = Bank()
    model = ScriptedLlm([call("transfer", {"amount": 5}), "OK, I will not send it."])
    runner = runner_for(service, model, [FunctionTool(bank.transfer, require_confirmation=True)])
    session = await runner.create_session(user_id="u")
    paused = await run(runner, session.id, "send 5")
    (request,) = requests_in(paused)

    events = await run(runner, session.id, "never mind")

    assert bank.runs == []
    assert events[-1].text == "OK, I will not send it."
    (seen,) = responses_seen(model, 1)
    assert seen["declined"] is True and seen["reason"] == "superseded by a new message"
    assert "transfer" in seen["error"] and "did not run" in seen["error"]
    assert [c.parts[0].text for c in model.requests[1].contents][-1] == "never mind"
    assert refusals(model.requests[1]) == {}
    _, records = await stored(runner, session.id)
    old, new = sorted(records, key=lambda r: r.started_at)
    assert old.id == paused[0].invocation_id and new.id == events[-1].invocation_id
    assert (old.status, old.journal, old.ended_at is not None) == (
        InvocationStatus.SUPERSEDED,
        {},
        True,
    )
    assert new.status is InvocationStatus.COMPLETED
    # the superseded request can no longer be answered
    with pytest.raises(ConfirmationError, match="superseded"):
        await run(runner, session.id, confirmation_answer(request.id, confirmed=True))
    assert bank.runs == []


async def test_a_superseded_batch_keeps_its_siblings_results(service):
    bank = Bank()
    model = ScriptedLlm(
        [[call("transfer", {"amount": 5}), call("balance")], "Balance is 100; nothing sent."]
    )
    tools = [FunctionTool(bank.transfer, require_confirmation=True), bank.balance]
    runner = runner_for(service, model, tools)
    session = await runner.create_session(user_id="u")
    await run(runner, session.id, "send 5 and show the balance")

    await run(runner, session.id, "actually just the balance")

    assert bank.runs == [("balance", {})]  # ran once, before the pause; not again
    transfer, balance = responses_seen(model, 1)
    assert transfer["reason"] == "superseded by a new message"
    assert balance == {"balance": 100}
    assert refusals(model.requests[1]) == {}


async def test_a_long_running_sibling_still_out_is_told_to_the_model_as_pending(service):
    bank = Bank()

    def approve(amount: int) -> None:
        """Ask the bank to approve (answers later).

        Args:
            amount: how much.
        """

    model = ScriptedLlm([[call("transfer", {"amount": 5}), call("approve", {"amount": 5})], "OK."])
    tools = [
        FunctionTool(bank.transfer, require_confirmation=True),
        LongRunningFunctionTool(approve),
    ]
    runner = runner_for(service, model, tools)
    session = await runner.create_session(user_id="u")
    await run(runner, session.id, "send 5 once approved")

    await run(runner, session.id, "forget it")

    transfer, approval = responses_seen(model, 1)
    assert transfer["reason"] == "superseded by a new message"
    assert approval["outcome"] == "pending"
    assert refusals(model.requests[1]) == {}


async def test_raise_refuses_the_message_before_any_model_call_and_stores_nothing(service):
    bank = Bank()
    model = ScriptedLlm([call("transfer", {"amount": 5}), "Sent."])
    runner = runner_for(service, model, [FunctionTool(bank.transfer, require_confirmation=True)])
    session = await runner.create_session(user_id="u")
    (request,) = requests_in(await run(runner, session.id, "send 5"))
    before, _ = await stored(runner, session.id)

    refusing = RunConfig(on_pending_confirmation="raise")
    with pytest.raises(ConfirmationPendingError) as raised:
        events = runner.run_async(
            user_id="u", session_id=session.id, new_message="hello?", run_config=refusing
        )
        [_ async for _ in events]

    assert raised.value.request_ids == [request.id]
    assert request.id in str(raised.value)
    assert len(model.requests) == 1
    after, (record,) = await stored(runner, session.id)
    assert [e.id for e in after.events] == [e.id for e in before.events]
    assert record.status is InvocationStatus.WAITING
    # the person can still answer
    await run(runner, session.id, confirmation_answer(request.id, confirmed=True))
    assert bank.runs == [("transfer", {"amount": 5, "payload": None})]


def test_on_pending_confirmation_takes_supersede_or_raise_only():
    with pytest.raises(ValueError, match="on_pending_confirmation"):
        RunConfig(on_pending_confirmation="ignore")  # type: ignore[arg-type]
