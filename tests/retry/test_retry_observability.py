"""Retry logs and spans: what an operator sees when a call needed retries."""

import logging
from collections.abc import AsyncIterator

import pytest
from opentelemetry import trace
from opentelemetry.trace import StatusCode

from steadyflow.context import LlmCallBudget
from steadyflow.errors import ModelHTTPError
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse
from steadyflow.retry import RetryConfig
from steadyflow.retry._executor import generate_with_retries
from steadyflow.testing import FakeClock, ScriptedLlm, http_error

RETRY3 = RetryConfig(max_attempts=3, jitter_ratio=0.0)


async def run(llm: BaseLlm, budget: LlmCallBudget, clock: FakeClock, config=RETRY3) -> list:
    responses = generate_with_retries(
        llm,
        LlmRequest(),
        stream=False,
        config=config,
        before_attempt=budget.increment,
        agent_name="support",
        invocation_id="e-42",
        clock=clock,
    )
    return [r async for r in responses]


def retry_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [
        r for r in caplog.records if r.name == "steadyflow.retry" and r.levelno == logging.WARNING
    ]


async def test_each_retry_logs_a_warning_with_its_facts(caplog, budget, clock) -> None:
    llm = ScriptedLlm([http_error(503), http_error(429, retry_after=3.0), "ok"])
    with caplog.at_level(logging.WARNING, logger="steadyflow.retry"):
        await run(llm, budget, clock)
    records = retry_records(caplog)
    facts = [
        (r.model, r.agent, r.invocation_id, r.attempt, r.delay, r.error_type, r.status_code)
        for r in records
    ]
    assert facts == [
        ("scripted-model", "support", "e-42", 1, 0.5, "ModelHTTPError", 503),
        ("scripted-model", "support", "e-42", 2, 3.0, "ModelHTTPError", 429),
    ]


async def test_retry_warning_message_names_model_agent_attempt_delay_and_error(
    caplog, budget, clock
) -> None:
    with caplog.at_level(logging.WARNING, logger="steadyflow.retry"):
        await run(ScriptedLlm([http_error(503), "ok"]), budget, clock)
    message = retry_records(caplog)[0].getMessage()
    for fragment in ("scripted-model", "support", "e-42", "attempt=1/3", "0.500s", "503"):
        assert fragment in message
    assert "ModelHTTPError" in message


async def test_first_attempt_success_logs_nothing(caplog, budget, clock) -> None:
    with caplog.at_level(logging.DEBUG, logger="steadyflow.retry"):
        await run(ScriptedLlm(["ok"]), budget, clock)
    assert [r for r in caplog.records if r.name == "steadyflow.retry"] == []


async def test_giving_up_is_logged_with_the_reason(caplog, budget, clock) -> None:
    llm = ScriptedLlm([http_error(429, retry_after=600.0)])
    with caplog.at_level(logging.INFO, logger="steadyflow.retry"), pytest.raises(ModelHTTPError):
        await run(llm, budget, clock)
    assert "provider asked to wait longer than max_retry_after" in caplog.text


async def test_call_span_carries_model_provider_agent_and_attempts(spans, budget, clock) -> None:
    await run(ScriptedLlm([http_error(503), "ok"]), budget, clock)
    (call,) = [s for s in spans.get_finished_spans() if s.name.startswith("call_llm")]
    assert call.name == "call_llm scripted-model"
    assert dict(call.attributes) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "scripted",
        "gen_ai.request.model": "scripted-model",
        "gen_ai.agent.name": "support",
        "steadyflow.llm.attempts": 2,
    }
    assert call.status.status_code is StatusCode.UNSET


async def test_each_attempt_is_a_child_span_with_attempt_delay_and_error(
    spans, budget, clock
) -> None:
    await run(ScriptedLlm([http_error(503), http_error(502), "ok"]), budget, clock)
    finished = spans.get_finished_spans()
    (call,) = [s for s in finished if s.name.startswith("call_llm")]
    attempts = [s for s in finished if s.name == "llm_attempt"]
    assert [s.parent.span_id for s in attempts] == [call.context.span_id] * 3
    assert [dict(s.attributes) for s in attempts] == [
        {
            "steadyflow.llm.attempt": 1,
            "steadyflow.llm.retry.delay_ms": 0.0,
            "error.type": "ModelHTTPError",
        },
        {
            "steadyflow.llm.attempt": 2,
            "steadyflow.llm.retry.delay_ms": 500.0,
            "error.type": "ModelHTTPError",
        },
        {"steadyflow.llm.attempt": 3, "steadyflow.llm.retry.delay_ms": 1000.0},
    ]
    assert [s.status.status_code for s in attempts] == [
        StatusCode.ERROR,
        StatusCode.ERROR,
        StatusCode.UNSET,
    ]


async def test_call_span_records_the_final_error(spans, budget, clock) -> None:
    with pytest.raises(ModelHTTPError):
        await run(ScriptedLlm([http_error(503), http_error(503), http_error(503)]), budget, clock)
    (call,) = [s for s in spans.get_finished_spans() if s.name.startswith("call_llm")]
    assert call.attributes["steadyflow.llm.attempts"] == 3
    assert call.attributes["error.type"] == "ModelHTTPError"
    assert call.status.status_code is StatusCode.ERROR
    assert [e.name for e in call.events] == ["exception"]


class TracingLlm(BaseLlm):
    """A provider that opens its own span, as an instrumented HTTP client would."""

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        with trace.get_tracer("provider").start_as_current_span("http POST"):
            response = LlmResponse.from_text("ok")
        yield response


async def test_provider_spans_are_children_of_the_attempt_span(spans, budget, clock) -> None:
    await run(TracingLlm("traced"), budget, clock)
    finished = {s.name: s for s in spans.get_finished_spans()}
    assert finished["http POST"].parent.span_id == finished["llm_attempt"].context.span_id


async def test_attempt_span_is_not_current_while_the_caller_handles_a_response(
    spans, budget, clock
) -> None:
    before = trace.get_current_span()
    current_during: list[trace.Span] = []
    async for _ in generate_with_retries(
        ScriptedLlm(["ok"]),
        LlmRequest(),
        stream=False,
        config=RETRY3,
        before_attempt=budget.increment,
        clock=clock,
    ):
        current_during.append(trace.get_current_span())
    assert current_during == [before]


class Journal:
    """An observer that notes each report, and what the budget and the clock had seen by then."""

    def __init__(self, budget: LlmCallBudget, clock: FakeClock) -> None:
        self.budget, self.clock, self.notes = budget, clock, []

    def note(self, what: str) -> None:
        self.notes.append((what, self.budget.count, len(self.clock.sleeps)))

    def call_started(self, provider: str, model: str) -> None:
        self.note(f"call {provider}:{model}")

    def attempt_started(self, attempt: int, delay: float, responses: AsyncIterator[LlmResponse]):
        self.note(f"attempt {attempt} after {delay}")
        return responses

    def response_received(self, response: LlmResponse) -> None:
        self.note(f"response {response.text}")

    def attempt_ended(self, error: Exception | None) -> None:
        self.note(f"ended {type(error).__name__ if error else 'ok'}")

    def attempt_failed(self, details, decision) -> None:
        self.note(f"failed retry={decision.retry}")

    def call_ended(self, attempts: int, error: BaseException | None) -> None:
        self.note(f"call ended after {attempts} {type(error).__name__ if error else 'ok'}")


async def run_observed(observer: Journal, budget: LlmCallBudget, clock: FakeClock) -> list:
    """A 503 then an answer, told to ``observer``."""
    responses = generate_with_retries(
        ScriptedLlm([http_error(503), "ok"]),
        LlmRequest(),
        stream=False,
        config=RETRY3,
        before_attempt=budget.increment,
        clock=clock,
        observer=observer,
    )
    return [r.text async for r in responses]


async def test_the_loop_reports_every_step_to_its_one_observer_in_the_diagrams_order(
    budget, clock
) -> None:
    journal = Journal(budget, clock)
    assert await run_observed(journal, budget, clock) == ["ok"]
    # (report, attempts charged, waits made): the retry is charged before its wait.
    assert journal.notes == [
        ("call scripted:scripted-model", 0, 0),
        ("attempt 1 after 0.0", 1, 0),
        ("ended ModelHTTPError", 1, 0),
        ("failed retry=True", 1, 0),
        ("attempt 2 after 0.5", 2, 1),
        ("response ok", 2, 1),
        ("ended ok", 2, 1),
        ("call ended after 2 ok", 2, 1),
    ]


async def test_an_observer_that_opens_no_spans_leaves_no_spans(spans, budget, clock) -> None:
    assert await run_observed(Journal(budget, clock), budget, clock) == ["ok"]
    assert spans.get_finished_spans() == ()
