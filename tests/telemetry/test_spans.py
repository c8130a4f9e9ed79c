"""The span tree of a turn: names, parents and attributes an operator relies on."""

import json
from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from steadyflow import Content, FunctionCall, LlmAgent, Part, RetryConfig, RunConfig
from steadyflow.models import LlmResponse
from steadyflow.testing import FakeClock, ScriptedLlm, call, fake_clock, http_error
from steadyflow.testing.harness import run_turn
from steadyflow.types import UsageMetadata

RETRY3 = RunConfig(max_llm_calls=10, retry_config=RetryConfig(max_attempts=3, jitter_ratio=0.0))


def answer(input_tokens: int, output_tokens: int, call: bool = False) -> LlmResponse:
    part = (
        Part(function_call=FunctionCall(id="c1", name="lookup_order", args={"order_id": "812"}))
        if call
        else Part(text="Shipped.")
    )
    return LlmResponse(
        content=Content(role="model", parts=[part]),
        finish_reason="STOP",
        usage_metadata=UsageMetadata(input_tokens=input_tokens, output_tokens=output_tokens),
    )


def lookup_order(order_id: str) -> dict:
    """Look up an order."""
    return {"order_id": order_id, "status": "shipped"}


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with fake_clock() as testing_clock:
        yield testing_clock


async def two_step_turn_with_one_retry() -> tuple[str, str]:
    model = ScriptedLlm([http_error(503), answer(11, 3, call=True), answer(20, 5)])
    agent = LlmAgent(name="order_support", model=model, tools=[lookup_order])
    result = await run_turn(agent, "Where is order 812?", run_config=RETRY3)
    assert result.error is None
    return result.session_id, result.events[0].invocation_id


def by_name(spans: InMemorySpanExporter) -> dict[str, list[ReadableSpan]]:
    named: dict[str, list[ReadableSpan]] = {}
    for span in spans.get_finished_spans():
        named.setdefault(span.name, []).append(span)
    for group in named.values():
        group.sort(key=lambda s: s.start_time or 0)
    return named


async def test_two_step_turn_with_a_retry_has_exactly_this_span_tree(spans, clock) -> None:
    await two_step_turn_with_one_retry()
    named = by_name(spans)
    assert {name: len(group) for name, group in named.items()} == {
        "invoke_agent order_support": 1,
        "call_llm scripted-model": 2,
        "llm_attempt": 3,
        "execute_tool lookup_order": 1,
    }
    (agent,) = named["invoke_agent order_support"]
    first_call, second_call = named["call_llm scripted-model"]
    attempts = named["llm_attempt"]
    (tool,) = named["execute_tool lookup_order"]
    assert agent.parent is None
    assert [s.parent.span_id for s in (first_call, second_call, tool)] == [
        agent.context.span_id
    ] * 3
    assert [s.parent.span_id for s in attempts] == [
        first_call.context.span_id,
        first_call.context.span_id,
        second_call.context.span_id,
    ]
    assert {s.context.trace_id for s in spans.get_finished_spans()} == {agent.context.trace_id}


async def test_agent_span_carries_agent_conversation_steps_and_budget(spans, clock) -> None:
    session_id, invocation_id = await two_step_turn_with_one_retry()
    (agent,) = by_name(spans)["invoke_agent order_support"]
    assert dict(agent.attributes) == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "order_support",
        "gen_ai.conversation.id": session_id,
        "steadyflow.invocation.id": invocation_id,
        "steadyflow.steps": 2,
        "steadyflow.callback.short_circuits": 0,
        "steadyflow.llm.budget.used": 3,
        "steadyflow.llm.budget.limit": 10,
    }
    assert agent.status.status_code is StatusCode.UNSET


async def test_call_spans_carry_model_step_attempts_usage_and_finish(spans, clock) -> None:
    session_id, _ = await two_step_turn_with_one_retry()
    first, second = by_name(spans)["call_llm scripted-model"]
    common = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "scripted",
        "gen_ai.request.model": "scripted-model",
        "gen_ai.agent.name": "order_support",
        "gen_ai.conversation.id": session_id,
    }
    assert dict(first.attributes) == {
        **common,
        "steadyflow.step": 1,
        "steadyflow.llm.attempts": 2,
        "gen_ai.usage.input_tokens": 11,
        "gen_ai.usage.output_tokens": 3,
        "gen_ai.response.finish_reasons": ("STOP",),
    }
    assert dict(second.attributes) == {
        **common,
        "steadyflow.step": 2,
        "steadyflow.llm.attempts": 1,
        "gen_ai.usage.input_tokens": 20,
        "gen_ai.usage.output_tokens": 5,
        "gen_ai.response.finish_reasons": ("STOP",),
    }


async def test_attempt_spans_carry_number_wait_and_error(spans, clock) -> None:
    await two_step_turn_with_one_retry()
    attempts = by_name(spans)["llm_attempt"]
    assert [dict(s.attributes) for s in attempts] == [
        {
            "steadyflow.llm.attempt": 1,
            "steadyflow.llm.retry.delay_ms": 0.0,
            "error.type": "ModelHTTPError",
        },
        {"steadyflow.llm.attempt": 2, "steadyflow.llm.retry.delay_ms": 500.0},
        {"steadyflow.llm.attempt": 1, "steadyflow.llm.retry.delay_ms": 0.0},
    ]
    assert [s.status.status_code for s in attempts] == [
        StatusCode.ERROR,
        StatusCode.UNSET,
        StatusCode.UNSET,
    ]


async def test_tool_span_carries_tool_name_call_id_and_type(spans, clock) -> None:
    await two_step_turn_with_one_retry()
    (tool,) = by_name(spans)["execute_tool lookup_order"]
    assert dict(tool.attributes) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup_order",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.id": "c1",
    }


async def test_the_callers_current_span_is_the_parent_of_the_agent_span(spans) -> None:
    tracer = trace.get_tracer("app")
    with tracer.start_as_current_span("request") as request_span:
        await run_turn(LlmAgent(name="a", model=ScriptedLlm(["hi"])), "hello")
    (agent,) = by_name(spans)["invoke_agent a"]
    assert agent.parent.span_id == request_span.get_span_context().span_id


async def test_a_transferred_agent_runs_under_the_agent_that_transferred(spans) -> None:
    billing = LlmAgent(name="billing", model=ScriptedLlm(["paid"]))
    root_model = ScriptedLlm([call("transfer_to_agent", {"agent_name": "billing"})])
    await run_turn(LlmAgent(name="root", model=root_model, sub_agents=[billing]), "invoice?")
    named = by_name(spans)
    (root,), (sub,) = named["invoke_agent root"], named["invoke_agent billing"]
    assert sub.parent.span_id == root.context.span_id
    assert (root.attributes["steadyflow.steps"], sub.attributes["steadyflow.steps"]) == (1, 1)


async def test_spans_a_tool_opens_are_children_of_its_tool_span(spans) -> None:
    def traced_tool() -> str:
        """Opens its own span, as an instrumented client would."""
        with trace.get_tracer("app").start_as_current_span("db query"):
            return "ok"

    model = ScriptedLlm([call("traced_tool"), "done"])
    await run_turn(LlmAgent(name="a", model=model, tools=[traced_tool]), "go")
    named = by_name(spans)
    (query,), (tool,) = named["db query"], named["execute_tool traced_tool"]
    assert query.parent.span_id == tool.context.span_id


async def test_a_before_tool_answer_marks_the_tool_span(spans) -> None:
    model = ScriptedLlm([call("lookup_order", {"order_id": "1"}), "done"])
    agent = LlmAgent(
        name="a",
        model=model,
        tools=[lookup_order],
        before_tool_callback=lambda **_: {"status": "cached"},
    )
    await run_turn(agent, "go")
    (tool,) = by_name(spans)["execute_tool lookup_order"]
    assert tool.attributes["steadyflow.callback.short_circuit"] == "before_tool_callback"


async def test_a_failing_tool_marks_its_span_with_the_error_type(spans) -> None:
    def broken() -> str:
        """Always fails."""
        raise KeyError("gone")

    await run_turn(
        LlmAgent(name="a", model=ScriptedLlm([call("broken"), "sorry"]), tools=[broken]), "go"
    )
    (tool,) = by_name(spans)["execute_tool broken"]
    assert tool.attributes["error.type"] == "KeyError"
    assert tool.status.status_code is StatusCode.ERROR


async def test_a_before_model_answer_counts_as_a_short_circuit_on_the_agent_span(spans) -> None:
    agent = LlmAgent(
        name="a",
        model=ScriptedLlm([]),
        before_model_callback=lambda **_: LlmResponse.from_text("cached"),
    )
    await run_turn(agent, "hi")
    named = by_name(spans)
    (agent_span,) = named["invoke_agent a"]
    assert agent_span.attributes["steadyflow.callback.short_circuits"] == 1
    assert agent_span.attributes["steadyflow.llm.budget.used"] == 0
    assert "call_llm scripted-model" not in named


async def test_an_error_that_ends_the_run_marks_the_agent_span(spans) -> None:
    result = await run_turn(LlmAgent(name="a", model=ScriptedLlm([http_error(400)])), "hi")
    assert result.error is not None
    (agent,) = by_name(spans)["invoke_agent a"]
    assert agent.attributes["error.type"] == "ModelHTTPError"
    assert agent.status.status_code is StatusCode.ERROR


async def test_bodies_are_not_recorded_by_default(spans, monkeypatch) -> None:
    monkeypatch.delenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", raising=False)
    await two_step_turn_with_one_retry_without_clock()
    for span in spans.get_finished_spans():
        assert not any(
            key.startswith(
                ("gen_ai.input", "gen_ai.output", "gen_ai.tool.call.a", "gen_ai.tool.call.r")
            )
            for key in span.attributes
        )


async def test_opting_in_records_prompt_response_and_tool_bodies(spans, monkeypatch) -> None:
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    await two_step_turn_with_one_retry_without_clock()
    named = by_name(spans)
    _, second = named["call_llm scripted-model"]
    (tool,) = named["execute_tool lookup_order"]
    assert "Where is order 812?" in second.attributes["gen_ai.input.messages"]
    assert "Shipped." in second.attributes["gen_ai.output.messages"]
    assert json.loads(tool.attributes["gen_ai.tool.call.arguments"]) == {"order_id": "812"}
    assert json.loads(tool.attributes["gen_ai.tool.call.result"])["status"] == "shipped"


async def two_step_turn_with_one_retry_without_clock() -> None:
    with fake_clock():
        await two_step_turn_with_one_retry()
