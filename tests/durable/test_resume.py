"""Resume: a turn cut short by its process dying continues, and never replays.

The crash is an exception raised where the process would die (in a tool, in
a model call); the record is then set to what a killed process leaves behind
(``RUNNING``, owned by a pid that is gone), so the resume takes it as it would
after a real crash.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys

import pytest

from steadyflow import FunctionTool, LlmAgent, RunConfig, Runner, ToolContext
from steadyflow.durable import INTERRUPTED_RESPONSE
from steadyflow.errors import (
    LlmCallsLimitExceededError,
    NothingToResumeError,
    StaleInvocationError,
)
from steadyflow.sessions import InvocationOwner, InvocationStatus
from steadyflow.testing import ScriptedLlm, call
from steadyflow.tools import idempotent


class Crash(BaseException):
    """Stands for the process dying at this point."""


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


async def as_if_killed(runner: Runner, session_id: str, llm_calls: int | None = None) -> None:
    """Leave the session's latest record as a SIGKILLed owner would: running, owner gone.

    ``llm_calls``: what the killed process had committed (its last event's count).
    """
    service = runner.session_service
    record = (await service.list_invocations(app_name="app", user_id="u", session_id=session_id))[
        -1
    ]
    record.status, record.trace, record.ended_at = InvocationStatus.RUNNING, None, None
    record.owner = InvocationOwner(socket.gethostname(), dead_pid(), 0.0)
    if llm_calls is not None:
        record.llm_calls = llm_calls
    await service.update_invocation(record)


class Tools:
    """Tools that log each run; ``crash`` names the ones that die while running."""

    def __init__(self, crash: set[str]) -> None:
        self.runs: list[tuple[str, str]] = []
        self.crash = crash

    async def after_siblings(self, tool_context: ToolContext) -> None:
        """Wait until every other call of the batch has its result journaled."""
        journal = tool_context.invocation_context.journal
        record = getattr(journal, "record", None)
        while record is not None and any(  # noqa: ASYNC110 - the journal has no event
            entry.get("state") != "done" and call_id != tool_context.function_call_id
            for call_id, entry in record.journal.items()
        ):
            await asyncio.sleep(0)

    def make(self, name: str):
        async def tool(order_id: str, tool_context: ToolContext) -> dict:
            """A side effect.

            Args:
                order_id: the order.
            """
            self.runs.append((name, tool_context.idempotency_key))
            if name in self.crash:
                self.crash.discard(name)
                raise Crash
            return {"done": name, "order": order_id}

        tool.__name__ = name
        return tool


async def crash_then(runner: Runner, session_id: str, llm_calls: int | None = None) -> list:
    events = []
    with pytest.raises((Crash, BaseExceptionGroup)):  # a batch's crash comes in a group
        async for event in runner.run_async(user_id="u", session_id=session_id, new_message="go"):
            events.append(event)
    await as_if_killed(runner, session_id, llm_calls)
    return events


async def resumed(runner: Runner, session_id: str, **kwargs) -> list:
    return [e async for e in runner.resume_async(user_id="u", session_id=session_id, **kwargs)]


async def stored(runner: Runner, session_id: str):
    session = await runner.session_service.get_session(
        app_name="app", user_id="u", session_id=session_id
    )
    records = await runner.session_service.list_invocations(
        app_name="app", user_id="u", session_id=session_id
    )
    return session, records


def responses_seen(model: ScriptedLlm, request: int) -> list[dict]:
    return [
        p.function_response.response
        for c in model.requests[request].contents
        for p in c.parts
        if p.function_response is not None
    ]


async def test_a_tool_cut_short_is_not_run_again_and_the_model_is_told(service):
    tools = Tools(crash={"charge"})
    model = ScriptedLlm([call("charge", {"order_id": "7"}), "I could not confirm the charge."])
    runner = Runner(
        app_name="app",
        agent=LlmAgent(name="a", model=model, tools=[tools.make("charge")]),
        session_service=service,
    )
    session = await runner.create_session(user_id="u")
    await crash_then(runner, session.id)

    events = await resumed(runner, session.id)

    assert [name for name, _ in tools.runs] == ["charge"]  # never again
    assert responses_seen(model, 1) == [INTERRUPTED_RESPONSE]
    assert events[-1].text == "I could not confirm the charge."
    stored_session, (record,) = await stored(runner, session.id)
    assert [e.author for e in stored_session.events] == ["user", "a", "a", "a"]  # user once
    assert (record.status, record.resume_count, record.llm_calls) == (
        InvocationStatus.COMPLETED,
        1,
        2,
    )
    assert record.id == events[0].invocation_id and record.journal == {}
    model.assert_complete()


async def test_an_idempotent_tool_cut_short_runs_again_with_the_same_key(service):
    tools = Tools(crash={"ticket"})
    model = ScriptedLlm([call("ticket", {"order_id": "7"}), "Ticket opened."])
    agent = LlmAgent(name="a", model=model, tools=[idempotent(tools.make("ticket"))])
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await runner.create_session(user_id="u")
    await crash_then(runner, session.id)
    events = await resumed(runner, session.id)

    (first, key1), (second, key2) = tools.runs
    assert (first, second) == ("ticket", "ticket") and key1 == key2
    assert responses_seen(model, 1) == [{"done": "ticket", "order": "7"}]
    assert events[-1].text == "Ticket opened."


async def test_a_finished_sibling_is_never_run_again(service):
    tools = Tools(crash={"slow"})
    model = ScriptedLlm(
        [[call("fast", {"order_id": "1"}), call("slow", {"order_id": "2"})], "Both handled."]
    )
    agent = LlmAgent(
        name="a", model=model, tools=[tools.make("fast"), FunctionTool(tools.make("slow"))]
    )
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await runner.create_session(user_id="u")
    await crash_then(runner, session.id)
    await resumed(runner, session.id)

    assert sorted(name for name, _ in tools.runs) == ["fast", "slow"]  # each once
    assert responses_seen(model, 1) == [{"done": "fast", "order": "1"}, INTERRUPTED_RESPONSE]


async def test_a_model_call_in_flight_is_made_again_and_the_budget_spans_the_crash(service):
    model = ScriptedLlm([Crash(), "hello"])
    runner = Runner(app_name="app", agent=LlmAgent(name="a", model=model), session_service=service)
    session = await runner.create_session(user_id="u")
    await crash_then(runner, session.id, llm_calls=0)  # killed mid-call
    events = await resumed(runner, session.id)

    assert [e.text for e in events] == ["hello"]
    assert len(model.requests) == 2 and [c.text for c in model.requests[1].contents] == ["go"]
    (record,) = (await stored(runner, session.id))[1]
    assert record.llm_calls == 2  # the attempt cut short counts


async def test_attempts_before_the_crash_count_against_max_llm_calls(service):
    model = ScriptedLlm([call("noop", {"order_id": "1"}), Crash(), "never"])
    tools = Tools(crash=set())
    agent = LlmAgent(name="a", model=model, tools=[tools.make("noop")])
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await runner.create_session(user_id="u")
    events = []
    with pytest.raises((Crash, BaseExceptionGroup)):  # a batch's crash comes in a group
        async for event in runner.run_async(
            user_id="u",
            session_id=session.id,
            new_message="go",
            run_config=RunConfig(max_llm_calls=2),
        ):
            events.append(event)
    await as_if_killed(runner, session.id)
    with pytest.raises(LlmCallsLimitExceededError):
        await resumed(runner, session.id)
    assert len(model.requests) == 2  # the limit (2) was reached before the crash


async def test_there_is_nothing_to_resume_after_a_finished_turn(service):
    runner = Runner(
        app_name="app", agent=LlmAgent(name="a", model=ScriptedLlm(["hi"])), session_service=service
    )
    session = await runner.create_session(user_id="u")
    with pytest.raises(NothingToResumeError, match="no unfinished invocation"):
        await resumed(runner, session.id)
    [e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="x")]
    with pytest.raises(NothingToResumeError, match="latest is completed"):
        await resumed(runner, session.id)


async def test_a_live_invocation_is_never_taken_over(service):
    gate = asyncio.Event()

    async def wait(order_id: str) -> dict:
        """Wait.

        Args:
            order_id: the order.
        """
        await gate.wait()
        return {}

    model = ScriptedLlm([call("wait", {"order_id": "1"}), "done"])
    agent = LlmAgent(name="a", model=model, tools=[wait])
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await runner.create_session(user_id="u")
    running = runner.run_async(user_id="u", session_id=session.id, new_message="go")
    await anext(running)  # the call event; the tool now waits
    task = asyncio.ensure_future(anext(running))
    await asyncio.sleep(0)
    with pytest.raises(NothingToResumeError, match="never taken over"):
        await resumed(runner, session.id)
    gate.set()
    await task
    assert [e.text async for e in running] == ["done"]


async def test_of_two_resumers_exactly_one_proceeds(service):
    model = ScriptedLlm([Crash(), "hello"])
    runner = Runner(app_name="app", agent=LlmAgent(name="a", model=model), session_service=service)
    session = await runner.create_session(user_id="u")
    await crash_then(runner, session.id, llm_calls=0)
    outcomes = await asyncio.gather(
        resumed(runner, session.id), resumed(runner, session.id), return_exceptions=True
    )
    errors = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(errors) == 1
    assert isinstance(errors[0], StaleInvocationError | NothingToResumeError)
    assert len(model.requests) == 2


def test_the_sync_resume_continues_the_turn(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    model = ScriptedLlm([Crash(), "hello"])
    runner = Runner(app_name="app", agent=LlmAgent(name="a", model=model), session_service=url)

    async def crash() -> str:
        session = await runner.create_session(user_id="u")
        await crash_then(runner, session.id, llm_calls=0)
        await runner.close()
        return session.id

    session_id = asyncio.run(crash())
    assert [e.text for e in runner.resume(user_id="u", session_id=session_id)] == ["hello"]
