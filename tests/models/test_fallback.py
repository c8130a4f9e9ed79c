"""FallbackLlm: the next model answers when the one before it is unavailable."""

import logging
from collections.abc import Iterator

import pytest

from steadyflow import CallbackContext, LlmAgent, RetryConfig, RunConfig, StreamingMode
from steadyflow.errors import CircuitOpenError, LlmCallsLimitExceededError, ModelHTTPError
from steadyflow.models import LlmRegistry, LlmRequest, LlmResponse
from steadyflow.models.fallback import ANSWERED_BY_KEY, FALLBACK_INDEX_KEY, FallbackLlm
from steadyflow.retry import CircuitBreaker
from steadyflow.retry._config import DEFAULT_RETRYABLE_STATUS_CODES
from steadyflow.testing import FakeClock, ScriptedLlm, Stream, fake_clock, http_error
from steadyflow.testing.harness import run_turn
from steadyflow.types import Content


@pytest.fixture(autouse=True)
def testing_clock() -> Iterator[FakeClock]:
    with fake_clock() as clock:
        yield clock


class RecordingBudget:
    def __init__(self) -> None:
        self.records: list[tuple[str, bool]] = []

    async def allow(self, key: str, *, retry: bool) -> bool:
        return True

    async def record(self, key: str, *, failed: bool) -> None:
        self.records.append((key, failed))


class Calls:
    """An after-model callback that notes the invocation's LLM-call count."""

    def __init__(self) -> None:
        self.counts: list[int] = []
        self.errors: list[BaseException] = []

    def after(self, callback_context: CallbackContext, llm_response: LlmResponse) -> None:
        self.counts.append(callback_context.invocation_context.budget.count)

    def on_error(self, callback_context, llm_request, error) -> None:
        self.errors.append(error)


def agent(model, calls: Calls | None = None) -> LlmAgent:
    calls = calls or Calls()
    return LlmAgent(
        name="support",
        model=model,
        after_model_callback=calls.after,
        on_model_error_callback=calls.on_error,
    )


def retries(attempts: int = 3, **kwargs) -> RunConfig:
    run_kwargs = {k: kwargs.pop(k) for k in ("max_llm_calls", "streaming_mode") if k in kwargs}
    retry = RetryConfig(max_attempts=attempts, jitter_ratio=0.0, **kwargs)
    return RunConfig(retry_config=retry, **run_kwargs)


async def test_secondary_answers_after_the_primary_gives_up_on_503s() -> None:
    primary = ScriptedLlm([http_error(503)] * 3, model="primary")
    secondary = ScriptedLlm(["from secondary"], model="secondary")
    result = await run_turn(agent(FallbackLlm([primary, secondary])), "hi", run_config=retries())
    assert result.error is None
    assert result.final_text == "from secondary"
    assert (primary.calls, secondary.calls) == (3, 1)


async def test_the_event_records_which_model_answered() -> None:
    primary = ScriptedLlm([http_error(503)], model="primary")
    secondary = ScriptedLlm(["ok"], model="secondary")
    result = await run_turn(agent(FallbackLlm([primary, secondary])), "hi", run_config=retries(1))
    event = result.complete_events[-1]
    assert event.custom_metadata == {ANSWERED_BY_KEY: "secondary", FALLBACK_INDEX_KEY: 1}
    assert event.model_version == "secondary"


async def test_the_primary_is_recorded_when_it_answers() -> None:
    primary = ScriptedLlm([LlmResponse.from_text("ok", model_version="primary-2025-01")])
    result = await run_turn(agent(FallbackLlm([primary, ScriptedLlm([])])), "hi")
    event = result.complete_events[-1]
    assert event.custom_metadata == {ANSWERED_BY_KEY: "scripted-model", FALLBACK_INDEX_KEY: 0}
    assert event.model_version == "primary-2025-01"


async def test_every_attempt_on_every_model_is_charged_to_max_llm_calls() -> None:
    calls = Calls()
    primary = ScriptedLlm([http_error(503)] * 3, model="primary")
    secondary = ScriptedLlm([http_error(503), "ok"], model="secondary")
    await run_turn(agent(FallbackLlm([primary, secondary]), calls), "hi", run_config=retries())
    assert calls.counts == [5]


async def test_max_llm_calls_stops_the_chain_before_the_secondary() -> None:
    primary = ScriptedLlm([http_error(503)] * 3, model="primary")
    secondary = ScriptedLlm(["never reached"], model="secondary")
    model = FallbackLlm([primary, secondary])
    result = await run_turn(agent(model), "hi", run_config=retries(max_llm_calls=3))
    assert isinstance(result.error, LlmCallsLimitExceededError)
    assert secondary.calls == 0


async def test_the_retry_budget_is_told_about_both_models() -> None:
    budget = RecordingBudget()
    primary = ScriptedLlm([http_error(503)] * 2, model="primary")
    secondary = ScriptedLlm(["ok"], model="secondary")
    model = FallbackLlm([primary, secondary])
    await run_turn(agent(model), "hi", run_config=retries(2, budget=budget))
    assert budget.records == [
        ("scripted:primary", True),
        ("scripted:primary", True),
        ("scripted:secondary", False),
    ]


async def test_an_open_circuit_moves_on_without_calling_the_primary() -> None:
    breaker = CircuitBreaker(minimum_calls=1)
    await breaker.record("scripted:primary", failed=True)
    primary = ScriptedLlm(["never reached"], model="primary")
    secondary = ScriptedLlm(["ok"], model="secondary")
    model = FallbackLlm([primary, secondary])
    result = await run_turn(agent(model), "hi", run_config=retries(circuit_breaker=breaker))
    assert (result.final_text, primary.calls) == ("ok", 0)


async def test_no_fallback_after_a_partial_stream() -> None:
    broken = Stream(["Hel"], error=http_error(503), error_after=1)
    primary = ScriptedLlm([broken], model="primary")
    secondary = ScriptedLlm(["never reached"], model="secondary")
    config = retries(streaming_mode=StreamingMode.SSE)
    result = await run_turn(agent(FallbackLlm([primary, secondary])), "hi", run_config=config)
    assert isinstance(result.error, ModelHTTPError)
    assert [e.text for e in result.events if e.partial] == ["Hel"]
    assert secondary.calls == 0


async def test_a_stream_that_fails_before_its_first_chunk_falls_back() -> None:
    broken = Stream(["Hel"], error=http_error(503), error_after=0)
    primary = ScriptedLlm([broken], model="primary")
    secondary = ScriptedLlm(["hello"], model="secondary")
    config = retries(1, streaming_mode=StreamingMode.SSE)
    result = await run_turn(agent(FallbackLlm([primary, secondary])), "hi", run_config=config)
    assert result.final_text == "hello"


async def test_an_error_that_is_not_transient_does_not_fall_back() -> None:
    primary = ScriptedLlm([http_error(400)], model="primary")
    secondary = ScriptedLlm(["never reached"], model="secondary")
    result = await run_turn(agent(FallbackLlm([primary, secondary])), "hi", run_config=retries())
    assert isinstance(result.error, ModelHTTPError)
    assert secondary.calls == 0


async def test_when_every_model_fails_callbacks_see_the_last_error_once() -> None:
    calls = Calls()
    last = http_error(503, "secondary down")
    primary = ScriptedLlm([http_error(503)], model="primary")
    secondary = ScriptedLlm([last], model="secondary")
    model = FallbackLlm([primary, secondary])
    result = await run_turn(agent(model, calls), "hi", run_config=retries(1))
    assert result.error is last
    assert calls.errors == [last]


async def test_each_model_is_sent_the_request_under_its_own_name() -> None:
    primary = ScriptedLlm([http_error(503)], model="primary")
    secondary = ScriptedLlm(["ok"], model="secondary")
    await run_turn(agent(FallbackLlm([primary, secondary])), "hi", run_config=retries(1))
    assert (primary.requests[0].model, secondary.requests[0].model) == ("primary", "secondary")


async def test_falling_back_is_logged(caplog) -> None:
    primary = ScriptedLlm([http_error(503)], model="primary")
    secondary = ScriptedLlm(["ok"], model="secondary")
    with caplog.at_level(logging.WARNING, logger="steadyflow.retry"):
        await run_turn(agent(FallbackLlm([primary, secondary])), "hi", run_config=retries(1))
    assert "model primary unavailable (ModelHTTPError), falling back to secondary" in caplog.text


async def test_called_directly_it_makes_one_attempt_per_model() -> None:
    primary = ScriptedLlm([http_error(503), "unused"], model="primary")
    secondary = ScriptedLlm(["ok"], model="secondary")
    request = LlmRequest(model="primary", contents=[Content.from_text("hi", role="user")])
    responses = FallbackLlm([primary, secondary]).generate_content_async(request)
    answers = [r async for r in responses]
    assert [(r.text, r.custom_metadata[ANSWERED_BY_KEY]) for r in answers] == [("ok", "secondary")]
    assert primary.calls == 1


async def test_called_directly_an_open_circuit_error_moves_on() -> None:
    primary = ScriptedLlm([CircuitOpenError("open")], model="primary")
    request = LlmRequest(contents=[Content.from_text("hi", role="user")])
    model = FallbackLlm([primary, ScriptedLlm(["ok"], model="secondary")])
    assert [r.text async for r in model.generate_content_async(request)] == ["ok"]


def test_model_names_are_resolved_through_the_registry_on_first_use() -> None:
    made: list[str] = []

    def factory(name: str) -> ScriptedLlm:
        made.append(name)
        return ScriptedLlm([], model=name)

    LlmRegistry.register(r"fallback-test-.*", factory)
    try:
        model = FallbackLlm(["fallback-test-a", "fallback-test-b"])
        assert (model.model, made) == ("fallback-test-a", [])
        assert [m.model for m in model.models] == ["fallback-test-a", "fallback-test-b"]
    finally:
        LlmRegistry.unregister(r"fallback-test-.*")


def test_a_nested_chain_is_flattened() -> None:
    a, b, c = (ScriptedLlm([], model=n) for n in "abc")
    assert [m.model for m in FallbackLlm([a, FallbackLlm([b, c])]).models] == ["a", "b", "c"]


async def test_called_directly_a_transient_status_of_the_default_set_moves_on() -> None:
    for status in sorted(DEFAULT_RETRYABLE_STATUS_CODES):
        primary = ScriptedLlm([http_error(status)], model="primary")
        model = FallbackLlm([primary, ScriptedLlm(["ok"], model="secondary")])
        request = LlmRequest(contents=[Content.from_text("hi", role="user")])
        assert [r.text async for r in model.generate_content_async(request)] == ["ok"], status


@pytest.mark.parametrize(
    ("models", "message"),
    [
        ([], "needs at least one model"),
        ("gpt-4o", "takes a list of models"),
        ([ScriptedLlm([]), 42], "must be model names or BaseLlm instances, got 42"),
        ([""], "must be model names or BaseLlm instances"),
    ],
)
def test_bad_model_lists_are_refused(models, message) -> None:
    with pytest.raises(ValueError, match=message):
        FallbackLlm(models)
