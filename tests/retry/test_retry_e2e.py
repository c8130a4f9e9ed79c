"""Retries through the public API: Runner, LlmAgent, RunConfig and ScriptedLlm."""

from collections.abc import Iterator

import pytest

from steadyflow import (
    CallbackContext,
    LlmAgent,
    LlmCallsLimitExceededError,
    RetryConfig,
    RunConfig,
    StreamingMode,
)
from steadyflow.errors import ModelHTTPError
from steadyflow.models import LlmRequest, LlmResponse
from steadyflow.testing import FakeClock, ScriptedLlm, Stream, call, fake_clock, http_error
from steadyflow.testing.harness import run_turn

RETRY3 = RunConfig(retry_config=RetryConfig(max_attempts=3, jitter_ratio=0.0))


@pytest.fixture
def testing_clock() -> Iterator[FakeClock]:
    with fake_clock() as clock:
        yield clock


class Spy:
    """Model callbacks that record what they saw and the budget at that moment."""

    def __init__(self) -> None:
        self.before: list[int] = []
        self.after: list[str] = []
        self.budget_after: list[int] = []
        self.errors: list[BaseException] = []

    def before_model(self, callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        self.before.append(len(llm_request.contents))

    def after_model(self, callback_context: CallbackContext, llm_response: LlmResponse) -> None:
        self.after.append(llm_response.text)
        self.budget_after.append(callback_context.invocation_context.budget.count)

    def on_model_error(
        self, callback_context: CallbackContext, llm_request: LlmRequest, error: BaseException
    ) -> None:
        self.errors.append(error)


def agent(llm: ScriptedLlm, spy: Spy | None = None, **kwargs) -> LlmAgent:
    spy = spy or Spy()
    return LlmAgent(
        name="support",
        model=llm,
        before_model_callback=spy.before_model,
        after_model_callback=spy.after_model,
        on_model_error_callback=spy.on_model_error,
        **kwargs,
    )


async def test_disabled_by_default_a_503_fails_the_turn_after_one_attempt(testing_clock) -> None:
    llm = ScriptedLlm([http_error(503), "never reached"])
    result = await run_turn(agent(llm), "hi")
    assert isinstance(result.error, ModelHTTPError)
    assert (llm.calls, testing_clock.sleeps) == (1, [])


async def test_503_then_success_gives_one_event_and_stores_no_event_from_the_failure(
    testing_clock,
) -> None:
    spy = Spy()
    llm = ScriptedLlm([http_error(503), "hello"])
    result = await run_turn(agent(llm, spy), "hi", run_config=RETRY3)
    assert result.error is None
    assert [(e.author, e.text) for e in result.events] == [("support", "hello")]
    stored = await result.stored_session()
    assert [(e.author, e.text) for e in stored.events] == [
        ("user", "hi"),
        ("support", "hello"),
    ]
    assert (llm.calls, spy.budget_after, testing_clock.sleeps) == (2, [2], [0.5])


async def test_callbacks_run_once_per_logical_call_not_per_attempt(testing_clock) -> None:
    spy = Spy()
    llm = ScriptedLlm([http_error(503), http_error(502), "hello"])
    await run_turn(agent(llm, spy), "hi", run_config=RETRY3)
    assert (len(spy.before), spy.after, spy.errors) == (1, ["hello"], [])


async def test_exhausted_attempts_reach_on_model_error_once_with_the_last_error(
    testing_clock,
) -> None:
    spy = Spy()
    last = http_error(500)
    llm = ScriptedLlm([http_error(503), http_error(502), last])
    result = await run_turn(agent(llm, spy), "hi", run_config=RETRY3)
    assert result.error is last
    assert spy.errors == [last]
    assert llm.calls == 3


async def test_budget_of_one_stops_retries_and_skips_on_model_error(testing_clock) -> None:
    spy = Spy()
    llm = ScriptedLlm([http_error(503), "never reached"])
    config = RunConfig(max_llm_calls=1, retry_config=RetryConfig(max_attempts=3))
    result = await run_turn(agent(llm, spy), "hi", run_config=config)
    assert isinstance(result.error, LlmCallsLimitExceededError)
    assert (llm.calls, spy.errors, testing_clock.sleeps) == (1, [], [])


async def test_a_tool_turn_with_one_retry_uses_exactly_three_calls_and_runs_the_tool_once(
    testing_clock,
) -> None:
    runs: list[str] = []

    def lookup_order(order_id: str) -> dict[str, str]:
        """Look up an order."""
        runs.append(order_id)
        return {"status": "shipped"}

    spy = Spy()
    llm = ScriptedLlm([call("lookup_order", {"order_id": "A1"}), http_error(503), "shipped"])
    config = RunConfig(max_llm_calls=5, retry_config=RetryConfig(max_attempts=3))
    result = await run_turn(
        agent(llm, spy, tools=[lookup_order]), "where is A1?", run_config=config
    )
    assert result.error is None
    assert result.final_text == "shipped"
    assert runs == ["A1"]
    assert spy.budget_after[-1] == 3
    user_turns = [c for c in llm.requests[-1].contents if c.role == "user" and c.text]
    assert [c.text for c in user_turns] == ["where is A1?"]
    responses = [p for c in llm.requests[-1].contents for p in c.parts if p.function_response]
    assert len(responses) == 1


async def test_streamed_error_after_a_partial_is_not_retried_nor_stored(testing_clock) -> None:
    llm = ScriptedLlm([Stream(["Hel", "lo"], error=http_error(503), error_after=1), "never"])
    config = RunConfig(
        streaming_mode=StreamingMode.SSE,
        retry_config=RetryConfig(max_attempts=3),
    )
    result = await run_turn(agent(llm), "hi", run_config=config)
    assert isinstance(result.error, ModelHTTPError)
    assert [(e.text, e.partial) for e in result.events] == [("Hel", True)]
    stored = await result.stored_session()
    assert [e.author for e in stored.events] == ["user"]
    assert llm.calls == 1


async def test_streamed_error_before_any_chunk_is_retried(testing_clock) -> None:
    llm = ScriptedLlm([Stream(["x"], error=http_error(503), error_after=0), Stream(["ok"])])
    config = RunConfig(streaming_mode=StreamingMode.SSE, retry_config=RetryConfig(max_attempts=3))
    result = await run_turn(agent(llm), "hi", run_config=config)
    assert [(e.text, bool(e.partial)) for e in result.events] == [("ok", True), ("ok", False)]
    assert llm.calls == 2
