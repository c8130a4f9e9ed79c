"""A streamed answer is held to its reservation: past it, the stream is cut and nothing stored."""

from __future__ import annotations

from collections.abc import AsyncIterator

from steadyflow import LlmAgent, RetryConfig, RunConfig, StreamingMode
from steadyflow.errors import UsageLimitCutError, UsageLimitExceededError
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse
from steadyflow.testing import ScriptedLlm, Stream, TurnResult, run_turn
from steadyflow.types import Content, GenerateContentConfig
from steadyflow.usage import SpendLimit, UsageLimits

from .helpers import usage

TEN = GenerateContentConfig(max_output_tokens=10)
FIVE_TOKENS = "abcd" * 5  # 20 characters: five tokens as the history module counts them


async def records_of(result: TurnResult) -> list:
    """The turn's invocation records."""
    return await result.runner.session_service.list_invocations(
        app_name="test_app", user_id=result.user_id, session_id=result.session_id
    )


def streamed(**limits: object) -> RunConfig:
    return RunConfig(
        streaming_mode=StreamingMode.SSE,
        usage_limits=UsageLimits(**limits),  # type: ignore[arg-type]
        retry_config=RetryConfig(max_attempts=3, initial_backoff=0),
    )


async def test_a_stream_past_its_reservation_is_cut_and_nothing_of_it_is_stored() -> None:
    model = ScriptedLlm([Stream([FIVE_TOKENS] * 5), "never"])
    agent = LlmAgent(name="a", model=model, generate_content_config=TEN)
    result = await run_turn(agent, "hi", run_config=streamed(max_total_tokens=1000))
    error = result.error
    assert isinstance(error, UsageLimitCutError) and isinstance(error, UsageLimitExceededError)
    assert (error.limit, error.maximum, error.used) == ("max_total_tokens", 10, 15)
    assert "the stream was cut and the answer not stored" in str(error)
    assert [e.text for e in result.events] == [FIVE_TOKENS, FIVE_TOKENS]  # the third passed it
    assert all(e.partial for e in result.events)
    assert len(model.requests) == 1  # never retried
    session = await result.stored_session()
    assert [e.author for e in session.events] == ["user"]
    (record,) = await records_of(result)
    assert record.error_type == "UsageLimitCutError"
    assert record.usage["output_tokens"] == 15  # charged what was received
    (attempt,) = record.trace.steps[0].attempts
    assert (attempt.status, attempt.error_type) == ("error", "UsageLimitCutError")


async def test_a_stream_that_reaches_its_reservation_exactly_is_not_cut() -> None:
    model = ScriptedLlm([Stream([FIVE_TOKENS, FIVE_TOKENS])])
    agent = LlmAgent(name="a", model=model, generate_content_config=TEN)
    result = await run_turn(agent, "hi", run_config=streamed(max_total_tokens=1000))
    assert result.error is None
    assert [e.text for e in result.complete_events] == [FIVE_TOKENS * 2]


async def test_the_cut_attempt_is_charged_to_the_spend_limits_what_it_received() -> None:
    model = ScriptedLlm([Stream([FIVE_TOKENS] * 5)])
    agent = LlmAgent(name="a", model=model, generate_content_config=TEN)
    config = RunConfig(
        streaming_mode=StreamingMode.SSE,
        spend_limits=[SpendLimit(scope="user", max_total_tokens=1000)],
    )
    result = await run_turn(agent, "hi", run_config=config)
    assert isinstance(result.error, UsageLimitCutError)
    assert result.error.limit == "user:max_total_tokens"
    (entry,) = await result.runner.spend_store.entries("test_app", 0.0)
    (record,) = await records_of(result)
    assert entry.tokens == record.usage["input_tokens"] + 15


class CountingLlm(BaseLlm):
    """Streams short chunks whose usage says far more was written than the text shows."""

    provider = "counting"

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        for written in (4, 8, 12):
            yield LlmResponse(
                content=Content.from_text("ab", role="model"),
                partial=True,
                usage_metadata=usage(30, written),
            )
        yield LlmResponse.from_text("abababab")


async def test_the_providers_running_count_is_believed_over_the_characters() -> None:
    agent = LlmAgent(name="a", model=CountingLlm("counting-model"), generate_content_config=TEN)
    result = await run_turn(agent, "hi", run_config=streamed(max_output_tokens=100))
    assert isinstance(result.error, UsageLimitCutError)
    assert (result.error.limit, result.error.used) == ("max_output_tokens", 12)
    assert len(result.events) == 2
    (record,) = await records_of(result)
    assert (record.usage["input_tokens"], record.usage["output_tokens"]) == (30, 12)


async def test_a_limit_that_allows_overshoot_never_cuts() -> None:
    model = ScriptedLlm([Stream([FIVE_TOKENS] * 5)])
    result = await run_turn(
        LlmAgent(name="a", model=model),
        "hi",
        run_config=streamed(max_total_tokens=1000, allow_overshoot=True),
    )
    assert result.error is None
    assert [e.text for e in result.complete_events] == [FIVE_TOKENS * 5]
