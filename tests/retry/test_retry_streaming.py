"""Streaming under the retry loop: committed once the first response is out."""

import pytest

from steadyflow.context import LlmCallBudget
from steadyflow.errors import ModelHTTPError
from steadyflow.models import LlmRequest, LlmResponse
from steadyflow.retry import RetryConfig
from steadyflow.retry._executor import generate_with_retries
from steadyflow.testing import FakeClock, ScriptedLlm, Stream, connection_error, http_error

RETRY3 = RetryConfig(max_attempts=3, jitter_ratio=0.0)


async def consume(
    llm: ScriptedLlm, budget: LlmCallBudget, clock: FakeClock, seen: list[LlmResponse]
) -> None:
    async for response in generate_with_retries(
        llm,
        LlmRequest(),
        stream=True,
        config=RETRY3,
        before_attempt=budget.increment,
        clock=clock,
    ):
        seen.append(response)


async def test_error_after_the_first_partial_is_not_retried(budget, clock) -> None:
    error = http_error(503)
    llm = ScriptedLlm([Stream(["Hel", "lo"], error=error, error_after=1), "never reached"])
    seen: list[LlmResponse] = []
    with pytest.raises(ModelHTTPError) as raised:
        await consume(llm, budget, clock, seen)
    assert raised.value is error
    assert [(r.text, r.partial) for r in seen] == [("Hel", True)]
    assert (llm.calls, budget.count, clock.sleeps) == (1, 1, [])


async def test_error_before_any_chunk_is_retried(budget, clock) -> None:
    llm = ScriptedLlm(
        [Stream(["lost"], error=connection_error(), error_after=0), Stream(["Hel", "lo"])]
    )
    seen: list[LlmResponse] = []
    await consume(llm, budget, clock, seen)
    assert [(r.text, bool(r.partial)) for r in seen] == [
        ("Hel", True),
        ("lo", True),
        ("Hello", False),
    ]
    assert (llm.calls, clock.sleeps) == (2, [0.5])


async def test_stream_that_fails_after_all_chunks_is_not_retried(budget, clock) -> None:
    llm = ScriptedLlm([Stream(["a", "b"], error=http_error(500)), "never reached"])
    seen: list[LlmResponse] = []
    with pytest.raises(ModelHTTPError):
        await consume(llm, budget, clock, seen)
    assert [r.text for r in seen] == ["a", "b"]
    assert llm.calls == 1


async def test_streamed_attempts_ask_the_provider_to_stream(budget, clock) -> None:
    llm = ScriptedLlm([Stream(["x"], error=http_error(503), error_after=0), "ok"])
    await consume(llm, budget, clock, [])
    assert llm.stream_flags == [True, True]
