"""Waiting for a person: a tool call pauses its invocation until it is confirmed or declined."""

from __future__ import annotations

import pytest

from steadyflow import Content, Event, FunctionTool, LlmAgent, Part, Runner, ToolContext
from steadyflow.errors import ConfirmationError, NothingToResumeError
from steadyflow.sessions import InvocationStatus
from steadyflow.testing import ScriptedLlm, call
from steadyflow.tools import (
    REQUEST_CONFIRMATION_NAME,
    ConfirmationRequest,
    confirmation_answer,
    confirmation_requests,
)

from .test_resume import as_if_killed, responses_seen, stored


class Bank:
    """Tools that log each run."""

    def __init__(self) -> None:
        self.runs: list[tuple[str, dict]] = []

    def transfer(self, amount: int, tool_context: ToolContext) -> dict:
        """Move money.

        Args:
            amount: how much.
        """
        confirmation = tool_context.tool_confirmation
        payload = None if confirmation is None else confirmation.payload
        self.runs.append(("transfer", {"amount": amount, "payload": payload}))
        return {"moved": amount}

    def balance(self) -> dict:
        """Read the balance."""
        self.runs.append(("balance", {}))
        return {"balance": 100}


def runner_for(service, model: ScriptedLlm, tools: list) -> Runner:
    return Runner(
        app_name="app", agent=LlmAgent(name="a", model=model, tools=tools), session_service=service
    )


async def run(runner: Runner, session_id: str, message) -> list[Event]:
    events = runner.run_async(user_id="u", session_id=session_id, new_message=message)
    return [e async for e in events]


def requests_in(events: list[Event]) -> list[ConfirmationRequest]:
    return [r for e in events for r in confirmation_requests(e)]


def parts_seen(model: ScriptedLlm, request: int) -> list[str]:
    """The names of every call and response the model was sent in request ``request``."""
    return [
        (p.function_call or p.function_response).name
        for c in model.requests[request].contents
        for p in c.parts
        if p.function_call or p.function_response
    ]


async def test_a_call_that_needs_confirmation_pauses_before_the_tool_runs(service):
    bank = Bank()
    model = ScriptedLlm([call("transfer", {"amount": 5}), "never"])
    runner = runner_for(service, model, [FunctionTool(bank.transfer, require_confirmation=True)])
    session = await runner.create_session(user_id="u")

    events = await run(runner, session.id, "send 5")

    assert bank.runs == []
    pause = events[-1]
    (request,) = confirmation_requests(pause)
    assert pause.long_running_tool_ids == [request.id]
    assert (request.call.name, request.call.args) == ("transfer", {"amount": 5})
    assert request.call.id == events[0].get_function_calls()[0].id
    assert "transfer" in request.hint
    stored_session, (record,) = await stored(runner, session.id)
    assert record.status is InvocationStatus.WAITING and record.ended_at is None
    assert record.owner is None and record.lease_expires_at is None
    assert [e.id for e in stored_session.events[1:]] == [e.id for e in events]
    assert len(model.requests) == 1


async def test_a_confirmed_call_runs_once_in_the_same_invocation(service):
    bank = Bank()
    model = ScriptedLlm([call("transfer", {"amount": 5}), "Sent."])
    runner = runner_for(service, model, [FunctionTool(bank.transfer, require_confirmation=True)])
    session = await runner.create_session(user_id="u")
    (request,) = requests_in(await run(runner, session.id, "send 5"))

    events = await run(runner, session.id, confirmation_answer(request.id, confirmed=True))

    assert bank.runs == [("transfer", {"amount": 5, "payload": None})]
    assert events[0].get_function_responses()[0].response == {"moved": 5}
    assert events[-1].text == "Sent."
    stored_session, (record,) = await stored(runner, session.id)
    assert {e.invocation_id for e in stored_session.events} == {record.id}
    assert (record.status, record.resume_count, record.llm_calls) == (
        InvocationStatus.COMPLETED,
        1,
        2,
    )
    assert record.journal == {}
    assert record.trace is not None  # one trace over the pause: both steps, numbered on
    assert [s.number for s in record.trace.steps] == [1, 2]
    assert record.trace.steps[0].tools[0].short_circuit == "confirmation"
    # The model never sees the pause or the answer, only its own call and its result.
    assert parts_seen(model, 1) == ["transfer", "transfer"]
    model.assert_complete()


async def test_a_declined_call_does_not_run_and_the_model_is_told(service):
    bank = Bank()
    model = ScriptedLlm([call("transfer", {"amount": 5}), "Cancelled."])
    runner = runner_for(service, model, [FunctionTool(bank.transfer, require_confirmation=True)])
    session = await runner.create_session(user_id="u")
    (request,) = requests_in(await run(runner, session.id, "send 5"))

    answer = confirmation_answer(request.id, confirmed=False, payload="too much")
    events = await run(runner, session.id, answer)

    assert bank.runs == []
    (seen,) = responses_seen(model, 1)
    assert seen["declined"] is True and seen["payload"] == "too much"
    assert "declined" in seen["error"]
    assert events[-1].text == "Cancelled."


async def test_a_predicate_decides_per_call(service):
    bank = Bank()
    model = ScriptedLlm(
        [[call("transfer", {"amount": 5}), call("transfer", {"amount": 500})], "Done."]
    )

    def large(args: dict, tool_context: ToolContext) -> bool:
        return args["amount"] > 100

    runner = runner_for(service, model, [FunctionTool(bank.transfer, require_confirmation=large)])
    session = await runner.create_session(user_id="u")
    (request,) = requests_in(await run(runner, session.id, "send both"))
    assert request.call.args == {"amount": 500}
    assert bank.runs == [("transfer", {"amount": 5, "payload": None})]  # the sibling ran at once

    events = await run(runner, session.id, confirmation_answer(request.id, confirmed=True))

    assert [r[1]["amount"] for r in bank.runs] == [5, 500]  # each once
    (response_event, _) = events
    # One response event, in call order, as if nothing had paused.
    assert [r.response for r in response_event.get_function_responses()] == [
        {"moved": 5},
        {"moved": 500},
    ]


async def test_a_tool_asks_with_a_payload_and_reads_the_answer(service):
    seen: list[object] = []

    def book(seat: str, tool_context: ToolContext) -> dict:
        """Book a seat.

        Args:
            seat: the seat.
        """
        if tool_context.tool_confirmation is None:
            tool_context.request_confirmation(hint="Which meal?", payload={"options": ["a", "b"]})
            return {"status": "asked"}
        seen.append(tool_context.tool_confirmation.payload)
        return {"booked": seat, "meal": tool_context.tool_confirmation.payload["meal"]}

    model = ScriptedLlm([call("book", {"seat": "3A"}), "Booked."])
    runner = runner_for(service, model, [book])
    session = await runner.create_session(user_id="u")
    (request,) = requests_in(await run(runner, session.id, "book"))
    assert (request.hint, request.payload) == ("Which meal?", {"options": ["a", "b"]})

    answer = confirmation_answer(request.id, confirmed=True, payload={"meal": "b"})
    await run(runner, session.id, answer)

    assert seen == [{"meal": "b"}]
    assert responses_seen(model, 1) == [{"booked": "3A", "meal": "b"}]


async def test_answers_may_come_one_at_a_time(service):
    bank = Bank()
    model = ScriptedLlm(
        [[call("transfer", {"amount": 1}), call("transfer", {"amount": 2})], "Both sent."]
    )
    runner = runner_for(service, model, [FunctionTool(bank.transfer, require_confirmation=True)])
    session = await runner.create_session(user_id="u")
    first, second = requests_in(await run(runner, session.id, "send"))

    assert await run(runner, session.id, confirmation_answer(first.id, confirmed=True)) == []
    (record,) = (await stored(runner, session.id))[1]
    assert record.status is InvocationStatus.WAITING and bank.runs == []

    events = await run(runner, session.id, confirmation_answer(second.id, confirmed=False))

    assert bank.runs == [("transfer", {"amount": 1, "payload": None})]
    assert events[-1].text == "Both sent."


async def test_a_waiting_invocation_is_not_resumed_but_answered(service):
    model = ScriptedLlm([call("transfer", {"amount": 5})])
    runner = runner_for(service, model, [FunctionTool(Bank().transfer, require_confirmation=True)])
    session = await runner.create_session(user_id="u")
    await run(runner, session.id, "send")

    with pytest.raises(NothingToResumeError, match="waiting for a confirmation"):
        [e async for e in runner.resume_async(user_id="u", session_id=session.id)]


async def wrong(runner: Runner, session_id: str, message: Content, match: str) -> None:
    before, records = await stored(runner, session_id)
    with pytest.raises(ConfirmationError, match=match):
        await run(runner, session_id, message)
    after, records_after = await stored(runner, session_id)
    assert len(after.events) == len(before.events)  # nothing appended
    assert [r.revision for r in records_after] == [r.revision for r in records]


async def test_an_answer_that_fits_no_waiting_request_is_refused(service):
    bank = Bank()
    model = ScriptedLlm([call("transfer", {"amount": 5}), "Sent."])
    runner = runner_for(service, model, [FunctionTool(bank.transfer, require_confirmation=True)])
    session = await runner.create_session(user_id="u")
    (request,) = requests_in(await run(runner, session.id, "send"))

    await wrong(runner, session.id, confirmation_answer("sf-nope", confirmed=True), "no confirm")
    await run(runner, session.id, confirmation_answer(request.id, confirmed=True))
    again = confirmation_answer(request.id, confirmed=True)
    await wrong(runner, session.id, again, "is completed, not waiting")
    assert len(bank.runs) == 1


async def test_a_malformed_answer_is_refused_before_anything_runs(service):
    runner = runner_for(service, ScriptedLlm([]), [])
    session = await runner.create_session(user_id="u")
    bad = [
        ({"confirmed": "yes"}, "not a bool"),
        ({"confirmed": True, "extra": 1}, "unknown keys"),
    ]
    for response, match in bad:
        part = Part.from_function_response(REQUEST_CONFIRMATION_NAME, response, id="sf-x")
        with pytest.raises(ConfirmationError, match=match):
            runner.run_async(user_id="u", session_id=session.id, new_message=Content(parts=[part]))
    mixed = confirmation_answer("sf-x", confirmed=True)
    mixed.parts.append(Part(text="and also"))
    with pytest.raises(ConfirmationError, match="only"):
        runner.run_async(user_id="u", session_id=session.id, new_message=mixed)
    session_after, records = await stored(runner, session.id)
    assert session_after.events == [] and records == []


async def test_a_crash_while_the_confirmed_tool_runs_is_not_run_again(service):
    class Crash(BaseException):
        pass

    runs: list[int] = []

    def transfer(amount: int) -> dict:
        """Move money.

        Args:
            amount: how much.
        """
        runs.append(amount)
        raise Crash

    model = ScriptedLlm([call("transfer", {"amount": 5}), "I do not know if it went through."])
    runner = runner_for(service, model, [FunctionTool(transfer, require_confirmation=True)])
    session = await runner.create_session(user_id="u")
    (request,) = requests_in(await run(runner, session.id, "send"))
    with pytest.raises(Crash):
        await run(runner, session.id, confirmation_answer(request.id, confirmed=True))
    await as_if_killed(runner, session.id)

    events = [e async for e in runner.resume_async(user_id="u", session_id=session.id)]

    assert runs == [5]
    assert responses_seen(model, 1)[0]["outcome"] == "unknown"
    assert events[-1].text == "I do not know if it went through."
    (record,) = (await stored(runner, session.id))[1]
    assert record.resume_count == 2  # once by the answer, once after the crash


async def test_a_process_killed_right_after_asking_leaves_the_invocation_waiting(service):
    bank = Bank()
    model = ScriptedLlm([call("transfer", {"amount": 5}), "Sent."])
    runner = runner_for(service, model, [FunctionTool(bank.transfer, require_confirmation=True)])
    session = await runner.create_session(user_id="u")
    (request,) = requests_in(await run(runner, session.id, "send 5"))
    await as_if_killed(runner, session.id)  # the pause is stored, the record not yet closed

    with pytest.raises(NothingToResumeError, match="waiting for a confirmation"):
        [e async for e in runner.resume_async(user_id="u", session_id=session.id)]
    (record,) = (await stored(runner, session.id))[1]
    assert record.status is InvocationStatus.WAITING and record.owner is None

    events = await run(runner, session.id, confirmation_answer(request.id, confirmed=True))
    assert bank.runs == [("transfer", {"amount": 5, "payload": None})]
    assert events[-1].text == "Sent."
