"""Workflow agents: sequential stages, parallel branches, loops that exit."""

import asyncio

import pytest

from steadyflow import (
    LlmAgent,
    LlmCallsLimitExceededError,
    LoopAgent,
    ParallelAgent,
    RunConfig,
    SequentialAgent,
    ToolContext,
)
from steadyflow.models import LlmRequest
from steadyflow.testing import FunctionLlm, ScriptedLlm, call, run_turn
from steadyflow.tools import exit_loop


def texts_seen(request: LlmRequest) -> list[str]:
    return [p.text or "" for c in request.contents for p in c.parts]


async def test_sequential_stages_run_in_order_and_later_stages_see_earlier_output():
    draft_model = ScriptedLlm(["a draft"])
    edit_model = ScriptedLlm(["an edit"])
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[
            LlmAgent(name="drafter", model=draft_model, output_key="draft"),
            LlmAgent(name="editor", model=edit_model, instruction="Edit: {draft}"),
        ],
    )
    result = await run_turn(pipeline, "write")

    assert result.error is None
    assert [e.author for e in result.events] == ["drafter", "editor"]
    assert "[drafter] said: a draft" in texts_seen(edit_model.requests[0])
    assert "Edit: a draft" in (edit_model.requests[0].config.system_instruction or "")


async def test_parallel_branches_interleave_and_do_not_see_each_other():
    left_may_answer = asyncio.Event()

    async def left_answer(request: LlmRequest) -> str:
        await left_may_answer.wait()
        return "left done"

    def right_answer(request: LlmRequest) -> str:
        left_may_answer.set()
        return "right done"

    left_model, right_model = FunctionLlm(left_answer), FunctionLlm(right_answer)
    fan_out = ParallelAgent(
        name="fan_out",
        sub_agents=[
            LlmAgent(name="left", model=left_model),
            LlmAgent(name="right", model=right_model),
        ],
    )
    result = await run_turn(fan_out, "go")

    assert result.error is None
    assert [(e.author, e.branch) for e in result.events] == [
        ("right", "fan_out.right"),
        ("left", "fan_out.left"),
    ]
    assert "right done" not in str(left_model.requests[0].contents)


async def test_a_stage_after_a_parallel_fan_out_sees_every_branch_even_when_nested():
    summary_model = ScriptedLlm(["summary"])
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[
            ParallelAgent(
                name="fan_out",
                sub_agents=[
                    LlmAgent(name="news", model=ScriptedLlm(["news facts"])),
                    LlmAgent(name="weather", model=ScriptedLlm(["weather facts"])),
                ],
            ),
            LlmAgent(name="summary", model=summary_model),
        ],
    )
    outer = ParallelAgent(name="outer", sub_agents=[pipeline])
    result = await run_turn(outer, "brief me")

    assert result.error is None
    seen = texts_seen(summary_model.requests[0])
    assert "[news] said: news facts" in seen and "[weather] said: weather facts" in seen


async def test_one_failing_branch_cancels_the_others_and_propagates():
    cancelled = asyncio.Event()

    async def slow(request: LlmRequest) -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    def broken(request: LlmRequest) -> str:
        raise KeyError("branch bug")

    fan_out = ParallelAgent(
        name="fan_out",
        sub_agents=[
            LlmAgent(name="slow", model=FunctionLlm(slow)),
            LlmAgent(name="broken", model=FunctionLlm(broken)),
        ],
    )
    result = await run_turn(fan_out, "go")

    assert isinstance(result.error, KeyError)
    assert cancelled.is_set()


async def test_a_loop_runs_until_an_agent_calls_exit_loop():
    critic_model = ScriptedLlm(["needs work", call("exit_loop")])
    writer_model = ScriptedLlm(["v1", "never: the loop ended"])
    loop = LoopAgent(
        name="refine",
        sub_agents=[
            LlmAgent(name="critic", model=critic_model, tools=[exit_loop]),
            LlmAgent(name="writer", model=writer_model),
        ],
    )
    result = await run_turn(loop, "write")

    assert result.error is None
    assert [e.author for e in result.events] == ["critic", "writer", "critic", "critic"]
    assert result.events[-1].actions.escalate
    assert writer_model.calls == 1 and critic_model.calls == 2
    # exit_loop returns nothing, as ADK's does
    assert result.events[-1].get_function_responses()[0].response == {"result": None}


async def test_a_loop_stops_after_max_iterations():
    model = ScriptedLlm(["one", "two", "three"])
    loop = LoopAgent(name="loop", sub_agents=[LlmAgent(name="a", model=model)], max_iterations=2)
    result = await run_turn(loop, "go")
    assert [e.text for e in result.events] == ["one", "two"]


def test_max_iterations_must_be_positive():
    with pytest.raises(ValueError, match="max_iterations must be a positive int"):
        LoopAgent(name="loop", sub_agents=[], max_iterations=0)


async def test_workflow_agents_share_the_invocations_call_budget():
    model = ScriptedLlm(["again"] * 10)
    loop = LoopAgent(name="loop", sub_agents=[LlmAgent(name="a", model=model)])
    result = await run_turn(loop, "go", run_config=RunConfig(max_llm_calls=3))
    assert isinstance(result.error, LlmCallsLimitExceededError)
    assert model.calls == 3


async def test_the_trace_shows_each_steps_place_in_the_agent_tree():
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[
            ParallelAgent(
                name="fan_out", sub_agents=[LlmAgent(name="news", model=ScriptedLlm(["n"]))]
            ),
            LlmAgent(name="summary", model=ScriptedLlm(["s"])),
        ],
    )
    result = await run_turn(pipeline, "go")
    (trace,) = await result.stored_traces()
    assert [step.path for step in trace.steps] == [
        ["pipeline", "fan_out", "news"],
        ["pipeline", "summary"],
    ]


async def test_a_root_llm_agent_transfers_to_a_pipeline_which_runs_its_stages():
    pipeline = SequentialAgent(
        name="pipeline",
        description="Does the work.",
        sub_agents=[
            LlmAgent(name="first", model=ScriptedLlm(["one"])),
            LlmAgent(name="second", model=ScriptedLlm(["two"])),
        ],
    )
    root = LlmAgent(
        name="root",
        model=ScriptedLlm([call("transfer_to_agent", {"agent_name": "pipeline"})]),
        sub_agents=[pipeline],
    )
    result = await run_turn(root, "go")
    assert result.error is None
    assert [e.author for e in result.events] == ["root", "root", "first", "second"]
    # a stage under a workflow agent is offered no transfer
    first = pipeline.sub_agents[0]
    assert first.transfer_targets() == []


async def test_workflow_agents_open_spans_their_sub_agents_nest_under():
    from tests.support.otel import span_exporter

    exporter = span_exporter()
    exporter.clear()
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[
            ParallelAgent(
                name="fan_out", sub_agents=[LlmAgent(name="news", model=ScriptedLlm(["n"]))]
            )
        ],
    )
    result = await run_turn(pipeline, "go")
    assert result.error is None
    spans = {s.name: s for s in exporter.get_finished_spans()}
    exporter.clear()
    pipeline_span = spans["invoke_agent pipeline"]
    fan_out_span = spans["invoke_agent fan_out"]
    news_span = spans["invoke_agent news"]
    assert fan_out_span.parent is not None and news_span.parent is not None
    assert fan_out_span.parent.span_id == pipeline_span.context.span_id
    assert news_span.parent.span_id == fan_out_span.context.span_id


async def test_a_stage_that_ends_the_invocation_stops_the_pipeline():
    def close_ticket(tool_context: ToolContext) -> str:
        """Close the ticket and end the conversation."""
        tool_context.actions.end_invocation = True
        return "closed"

    later = ScriptedLlm(["never"])
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[
            LlmAgent(
                name="closer", model=ScriptedLlm([call("close_ticket")]), tools=[close_ticket]
            ),
            LlmAgent(name="later", model=later),
        ],
    )
    result = await run_turn(pipeline, "close it")
    assert result.error is None
    assert later.calls == 0
