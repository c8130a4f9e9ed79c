"""The trace each invocation stores in its record, read back without OpenTelemetry."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from steadyflow import (
    Content,
    InMemoryRunner,
    LlmAgent,
    LlmCallsLimitExceededError,
    RetryConfig,
    RunConfig,
    Runner,
    StreamingMode,
)
from steadyflow.live_request_queue import LiveRequestQueue
from steadyflow.models import LlmResponse
from steadyflow.sessions import InvocationStatus, open_session_service
from steadyflow.testing import FakeClock, ScriptedLlm, call, fake_clock, http_error, run_turn
from steadyflow.trace_record import InvocationTrace
from tests.test_runner import LiveModel

RETRY3 = RunConfig(max_llm_calls=10, retry_config=RetryConfig(max_attempts=3, jitter_ratio=0.0))


def lookup_order(order_id: str) -> dict:
    """Look up an order."""
    return {"order_id": order_id, "status": "shipped"}


@pytest.fixture(autouse=True)
def clock() -> Iterator[FakeClock]:
    with fake_clock() as testing_clock:
        yield testing_clock


async def stored_trace(result) -> InvocationTrace:
    (trace,) = await result.stored_traces()
    return trace


async def test_the_trace_is_stored_in_the_record_and_the_session_holds_the_conversation_only():
    result = await run_turn(LlmAgent(name="a", model=ScriptedLlm(["hi"])), "hello")
    stored = await result.stored_session()
    assert [(e.author, e.text) for e in stored.events] == [("user", "hello"), ("a", "hi")]
    (record,) = await result.stored_invocations()
    assert record.id == result.events[0].invocation_id
    assert (record.status, record.agent, record.llm_calls) == (InvocationStatus.COMPLETED, "a", 1)
    assert record.trace is not None and record.trace.invocation_id == record.id


async def test_a_retry_is_recorded_with_its_error_status_wait_and_retry_after() -> None:
    model = ScriptedLlm([http_error(429, retry_after=2.0), "ok"])
    trace = await stored_trace(
        await run_turn(LlmAgent(name="a", model=model), "q", run_config=RETRY3)
    )
    (step,) = trace.steps
    first, second = step.attempts
    assert (first.status, first.error_type, first.status_code) == ("error", "ModelHTTPError", 429)
    assert (first.retry_after, first.outcome) == (2.0, "retry")
    assert (second.status, second.delay, second.delay_from_retry_after) == ("ok", 2.0, True)
    assert first.end is not None and first.start <= first.end <= second.start


async def test_a_backoff_wait_is_not_credited_to_retry_after() -> None:
    model = ScriptedLlm([http_error(503), "ok"])
    trace = await stored_trace(
        await run_turn(LlmAgent(name="a", model=model), "q", run_config=RETRY3)
    )
    second = trace.steps[0].attempts[1]
    assert (second.delay, second.delay_from_retry_after) == (0.5, False)


async def test_steps_tools_tokens_and_budget_are_recorded() -> None:
    model = ScriptedLlm([call("lookup_order", {"order_id": "812"}, id="c1"), "Shipped."])
    agent = LlmAgent(name="a", model=model, tools=[lookup_order])
    result = await run_turn(agent, "Where is 812?", run_config=RETRY3)
    trace = await stored_trace(result)
    assert [(s.number, s.agent, s.model, len(s.attempts)) for s in trace.steps] == [
        (1, "a", "scripted-model", 1),
        (2, "a", "scripted-model", 1),
    ]
    (tool,) = trace.steps[0].tools
    assert (tool.name, tool.call_id, tool.status) == ("lookup_order", "c1", "ok")
    assert trace.steps[1].tools == []
    assert trace.input_tokens == sum(s.input_tokens or 0 for s in trace.steps) > 0
    assert (trace.status, trace.budget_used, trace.budget_limit) == ("ok", 2, 10)
    assert trace.invocation_id == result.events[0].invocation_id


async def test_a_before_model_answer_is_a_step_without_attempts() -> None:
    agent = LlmAgent(
        name="a",
        model=ScriptedLlm([]),
        before_model_callback=lambda **_: LlmResponse.from_text("cached"),
    )
    trace = await stored_trace(await run_turn(agent, "hi"))
    (step,) = trace.steps
    assert (step.short_circuit, step.attempts, step.model) == ("before_model_callback", [], None)


async def test_an_on_model_error_answer_is_recorded_on_its_step() -> None:
    agent = LlmAgent(
        name="a",
        model=ScriptedLlm([http_error(400)]),
        on_model_error_callback=lambda **_: LlmResponse.from_text("sorry"),
    )
    trace = await stored_trace(await run_turn(agent, "hi"))
    (step,) = trace.steps
    assert step.short_circuit == "on_model_error_callback"
    assert step.attempts[0].outcome == "error is not retryable"


async def test_a_before_tool_answer_and_an_unknown_tool_are_recorded() -> None:
    model = ScriptedLlm([[call("lookup_order", {"order_id": "1"}), call("nope")], "done"])
    agent = LlmAgent(
        name="a",
        model=model,
        tools=[lookup_order],
        before_tool_callback=lambda tool, **_: {"cached": True} if tool.name else None,
    )
    trace = await stored_trace(await run_turn(agent, "go"))
    looked_up, unknown = trace.steps[0].tools
    assert (looked_up.short_circuit, looked_up.status) == ("before_tool_callback", "ok")
    assert (unknown.name, unknown.status, unknown.error_type) == ("nope", "error", "UnknownTool")


async def test_an_invocation_ending_in_error_still_stores_its_trace() -> None:
    result = await run_turn(LlmAgent(name="a", model=ScriptedLlm([http_error(400)])), "hi")
    assert result.error is not None
    trace = await stored_trace(result)
    assert (trace.status, trace.error_type) == ("error", "ModelHTTPError")
    assert trace.steps[0].attempts[0].status_code == 400


async def test_a_spent_budget_is_the_error_and_the_planned_retry_never_ran() -> None:
    model = ScriptedLlm([http_error(503), "never"])
    config = RunConfig(max_llm_calls=1, retry_config=RetryConfig(max_attempts=3))
    result = await run_turn(LlmAgent(name="a", model=model), "hi", run_config=config)
    assert isinstance(result.error, LlmCallsLimitExceededError)
    trace = await stored_trace(result)
    assert (trace.error_type, trace.budget_used, trace.budget_limit) == (
        "LlmCallsLimitExceededError",
        1,
        1,
    )
    (attempt,) = trace.steps[0].attempts
    assert attempt.outcome == "stopped by LlmCallsLimitExceededError"


async def test_a_caller_that_stops_early_gets_a_cancelled_trace() -> None:
    model = ScriptedLlm([call("lookup_order", {"order_id": "1"}), "done"])
    agent = LlmAgent(name="a", model=model, tools=[lookup_order])
    runner = Runner(app_name="t", agent=agent, session_service=open_session_service("memory://"))
    session = await runner.create_session(user_id="u")
    events = runner.run_async(user_id="u", session_id=session.id, new_message="go")
    await anext(events)
    await events.aclose()
    (record,) = await runner.session_service.list_invocations(
        app_name="t", user_id="u", session_id=session.id
    )
    assert record.status is InvocationStatus.CANCELLED
    assert record.trace is not None and record.trace.status == "cancelled"


async def test_the_next_turn_neither_sends_the_trace_nor_answers_as_its_author() -> None:
    model = ScriptedLlm(["one", "two"])
    agent = LlmAgent(name="a", model=model)
    first = await run_turn(agent, "q1")
    second = await run_turn(agent, "q2", runner=first.runner, session_id=first.session_id)
    assert second.final_text == "two"
    assert [c.text for c in model.requests[1].contents] == ["q1", "one", "q2"]
    assert len(await second.stored_traces()) == 2


async def test_sqlite_stores_and_returns_the_trace_unchanged(tmp_path: Path) -> None:
    service = open_session_service(f"sqlite:///{tmp_path / 'sessions.db'}")
    agent = LlmAgent(name="a", model=ScriptedLlm([http_error(503), "ok"]))
    runner = Runner(app_name="t", agent=agent, session_service=service)
    session = await runner.create_session(user_id="u")
    async for _ in runner.run_async(
        user_id="u", session_id=session.id, new_message="hi", run_config=RETRY3
    ):
        pass
    await runner.close()
    reopened = open_session_service(f"sqlite:///{tmp_path / 'sessions.db'}")
    (record,) = await reopened.list_invocations(app_name="t", user_id="u", session_id=session.id)
    await reopened.close()
    trace = record.trace
    assert trace is not None
    assert [a.status for a in trace.steps[0].attempts] == ["error", "ok"]


async def test_a_live_invocation_stores_its_trace_too() -> None:
    runner = InMemoryRunner(LlmAgent(name="a", model=LiveModel()))
    session = await runner.create_session(user_id="u")
    queue = LiveRequestQueue()
    queue.send_content(Content.from_text("hello"))
    queue.close()
    config = RunConfig(streaming_mode=StreamingMode.BIDI, max_llm_calls=3)
    async for _ in runner.run_live(
        user_id="u", session_id=session.id, live_request_queue=queue, run_config=config
    ):
        pass
    (record,) = await runner.session_service.list_invocations(
        app_name=runner.app_name, user_id="u", session_id=session.id
    )
    trace = record.trace
    assert trace is not None
    assert (trace.status, trace.budget_used, trace.budget_limit) == ("ok", 1, 3)
