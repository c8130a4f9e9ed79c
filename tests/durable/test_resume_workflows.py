"""Resume inside workflow agents: the stages, branches and rounds left still run.

A turn cut short inside a ``SequentialAgent``, ``ParallelAgent`` or
``LoopAgent`` resumes from the outermost workflow: agents that had finished
are not run again (their models see no new request), the one cut short
continues from its stored events, and what had not started runs. The stored
conversation ends as an uninterrupted run's would.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from steadyflow import (
    Event,
    FunctionTool,
    LlmAgent,
    LoopAgent,
    ParallelAgent,
    Runner,
    SequentialAgent,
)
from steadyflow.durable import INTERRUPTED_RESPONSE
from steadyflow.sessions import InvocationStatus
from steadyflow.testing import ScriptedLlm, call
from steadyflow.tools import confirmation_answer, confirmation_requests, exit_loop

from .test_resume import Crash, Tools, as_if_killed, crash_then, responses_seen, resumed, stored


@dataclass
class Resumed:
    runner: Runner
    session_id: str
    events: list[Event]


async def crash_and_resume(agent, service, crash=None, **crash_options) -> Resumed:
    """Run a turn of ``agent`` that crashes, then resume it."""
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await runner.create_session(user_id="u")
    await (crash or crash_then)(runner, session.id, **crash_options)
    return Resumed(runner, session.id, await resumed(runner, session.id))


async def test_a_sequence_cut_short_in_its_second_stage_runs_that_stage_only(service):
    first = ScriptedLlm(["found it"])
    second = ScriptedLlm([Crash(), "summed up"])
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[LlmAgent(name="find", model=first), LlmAgent(name="sum", model=second)],
    )
    turn = await crash_and_resume(pipeline, service, llm_calls=1)

    assert [e.text for e in turn.events] == ["summed up"]
    assert len(first.requests) == 1  # the finished stage is not asked again
    assert len(second.requests) == 2  # the call in flight at the crash, made again
    stored_session, (record,) = await stored(turn.runner, turn.session_id)
    assert [e.author for e in stored_session.events] == ["user", "find", "sum"]
    assert record.status is InvocationStatus.COMPLETED
    assert record.llm_calls == 3  # the call in flight at the crash counts, then its retry


async def test_a_stage_cut_short_in_a_tool_goes_on_and_the_stages_after_it_run(service):
    tools = Tools(crash={"charge"})
    first = ScriptedLlm([call("charge", {"order_id": "7"}), "charge unknown"])
    second = ScriptedLlm(["told the customer"])
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[
            LlmAgent(name="pay", model=first, tools=[tools.make("charge")]),
            LlmAgent(name="notify", model=second),
        ],
    )
    turn = await crash_and_resume(pipeline, service)

    assert [name for name, _ in tools.runs] == ["charge"]  # not run again
    assert responses_seen(first, 1) == [INTERRUPTED_RESPONSE]
    assert [e.text for e in turn.events if e.text] == ["charge unknown", "told the customer"]
    stored_session, _ = await stored(turn.runner, turn.session_id)
    authors = [e.author for e in stored_session.events]
    assert authors == ["user", "pay", "pay", "pay", "notify"]


async def test_a_nested_sequence_resumes_where_the_inner_one_stood(service):
    models = {name: ScriptedLlm([f"{name} done"]) for name in ("a", "b")}
    models["c"] = ScriptedLlm([Crash(), "c done"])
    inner = SequentialAgent(
        name="inner",
        sub_agents=[LlmAgent(name=n, model=models[n]) for n in ("b", "c")],
    )
    outer = SequentialAgent(name="outer", sub_agents=[LlmAgent(name="a", model=models["a"]), inner])
    turn = await crash_and_resume(outer, service)

    assert [e.text for e in turn.events] == ["c done"]
    assert [len(models[n].requests) for n in ("a", "b", "c")] == [1, 1, 2]


async def test_a_parallel_branch_cut_short_goes_on_and_the_finished_one_is_left(service):
    tools = Tools(crash={"ship"})
    fast = ScriptedLlm(["priced"])
    slow = ScriptedLlm([call("ship", {"order_id": "7"}), "shipping unknown"])
    fan_out = ParallelAgent(
        name="fan",
        sub_agents=[
            LlmAgent(name="price", model=fast),
            LlmAgent(name="shipper", model=slow, tools=[tools.make("ship")]),
        ],
    )
    turn = await crash_and_resume(fan_out, service, crash_then_or_stop)

    assert len(fast.requests) == 1  # the branch that had answered is not run again
    assert [name for name, _ in tools.runs] == ["ship"]
    assert responses_seen(slow, 1) == [INTERRUPTED_RESPONSE]
    assert [e.text for e in turn.events if e.text] == ["shipping unknown"]
    assert {e.branch for e in turn.events} == {"fan.shipper"}


async def crash_then_or_stop(runner: Runner, session_id: str) -> None:
    """A branch's crash ends only its branch here; the record is left as a killed run's."""
    with contextlib.suppress(Crash, BaseExceptionGroup):
        async for _ in runner.run_async(user_id="u", session_id=session_id, new_message="go"):
            pass
    await as_if_killed(runner, session_id)


async def test_a_loop_cut_short_finishes_its_round_and_runs_only_the_rounds_left(service):
    drafter = ScriptedLlm(["draft 1", "draft 2", "draft 3"])
    critic = ScriptedLlm(["note 1", Crash(), "note 2", "note 3"])
    loop = LoopAgent(
        name="refine",
        max_iterations=3,
        sub_agents=[
            LlmAgent(name="drafter", model=drafter),
            LlmAgent(name="critic", model=critic),
        ],
    )
    turn = await crash_and_resume(loop, service)  # in round 2, after its draft

    assert [e.text for e in turn.events] == ["note 2", "draft 3", "note 3"]
    assert (len(drafter.requests), len(critic.requests)) == (3, 4)
    stored_session, _ = await stored(turn.runner, turn.session_id)
    texts = [e.text for e in stored_session.events if e.author != "user"]
    assert texts == ["draft 1", "note 1", "draft 2", "note 2", "draft 3", "note 3"]


async def test_a_one_stage_loop_counts_the_rounds_it_had_run(service):
    model = ScriptedLlm(["round 1", "round 2", Crash(), "round 3", "never"])
    loop = LoopAgent(
        name="again", max_iterations=3, sub_agents=[LlmAgent(name="writer", model=model)]
    )
    turn = await crash_and_resume(loop, service)

    assert [e.text for e in turn.events] == ["round 3"]
    assert len(model.requests) == 4


async def test_a_loop_that_had_escalated_is_not_run_again(service):
    writer = ScriptedLlm([call("exit_loop", {}), "never"])
    after = ScriptedLlm([Crash(), "after the loop"])
    loop = LoopAgent(
        name="until_done", sub_agents=[LlmAgent(name="writer", model=writer, tools=[exit_loop])]
    )
    pipeline = SequentialAgent(
        name="pipeline", sub_agents=[loop, LlmAgent(name="after", model=after)]
    )
    turn = await crash_and_resume(pipeline, service)

    assert [e.text for e in turn.events] == ["after the loop"]
    assert len(writer.requests) == 1


async def test_a_confirmed_call_in_a_first_stage_runs_and_the_next_stage_follows(service):
    runs: list[int] = []

    def transfer(amount: int) -> dict:
        """Move money.

        Args:
            amount: how much.
        """
        runs.append(amount)
        return {"moved": amount}

    payer = ScriptedLlm([call("transfer", {"amount": 5}), "moved 5"])
    notifier = ScriptedLlm(["customer told"])
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[
            LlmAgent(
                name="pay",
                model=payer,
                tools=[FunctionTool(transfer, require_confirmation=True)],
            ),
            LlmAgent(name="notify", model=notifier),
        ],
    )
    runner = Runner(app_name="app", agent=pipeline, session_service=service)
    session = await runner.create_session(user_id="u")
    paused = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="pay")
    ]
    (request,) = [r for e in paused for r in confirmation_requests(e)]
    assert (runs, len(notifier.requests)) == ([], 0)  # the pipeline waits at its first stage

    answer = confirmation_answer(request.id, confirmed=True)
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message=answer)
    ]

    assert runs == [5]
    assert [e.text for e in events if e.text] == ["moved 5", "customer told"]
    _, (record,) = await stored(runner, session.id)
    assert record.status is InvocationStatus.COMPLETED
