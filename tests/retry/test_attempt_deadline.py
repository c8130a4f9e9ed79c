"""One attempt is bounded as a whole: the model's ``timeout`` and what is left of ``total_timeout``.

An HTTP timeout bounds each read, so a server trickling bytes kept an
attempt alive for ever. The retry loop cuts the attempt itself: a
``ModelTimeoutError``, retried by the usual rules when nothing was yielded.
The deadlines are tiny and the stalls are real awaits that never end (or a
server trickling bytes): no test sleeps, and none asserts a duration.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from steadyflow.context import LlmCallBudget
from steadyflow.errors import ModelTimeoutError
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse
from steadyflow.retry import RetryConfig
from steadyflow.retry._executor import generate_with_retries
from steadyflow.testing import FakeClock, http_error

TINY = 0.1


class Stalling(BaseLlm):
    """Answers per script: "stall" never answers, "chunk-then-stall" streams one chunk first."""

    def __init__(self, script: list[object], timeout: float | None = TINY) -> None:
        super().__init__("stalling-model")
        self.timeout, self.script, self.calls, self.closed = timeout, list(script), 0, 0

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        step = self.script[min(self.calls, len(self.script) - 1)]
        self.calls += 1
        try:
            if isinstance(step, BaseException):
                raise step
            if step == "chunk-then-stall":
                yield LlmResponse.from_text("Hel", partial=True)
            if step in ("stall", "chunk-then-stall"):
                await asyncio.Event().wait()
            yield LlmResponse.from_text(str(step))
        finally:
            self.closed += 1


async def run(llm: BaseLlm, config: RetryConfig, clock: FakeClock, stream: bool = False) -> list:
    responses = generate_with_retries(
        llm,
        LlmRequest(),
        stream=stream,
        config=config,
        before_attempt=LlmCallBudget(0).increment,
        clock=clock,
    )
    return [r.text async for r in responses]


async def test_an_attempt_past_the_models_timeout_is_a_model_timeout_error(clock) -> None:
    llm = Stalling(["stall"])
    with pytest.raises(ModelTimeoutError, match="stalling-model"):
        await run(llm, RetryConfig(), clock)
    assert (llm.calls, llm.closed) == (1, 1)


async def test_a_timed_out_attempt_that_yielded_nothing_is_retried(clock) -> None:
    llm = Stalling(["stall", "ok"])
    assert await run(llm, RetryConfig(max_attempts=2, jitter_ratio=0.0), clock) == ["ok"]
    assert (llm.calls, clock.sleeps) == (2, [0.5])


async def test_a_stream_cut_after_its_first_chunk_is_not_retried(clock) -> None:
    llm = Stalling(["chunk-then-stall", "never"])
    texts: list[str] = []
    with pytest.raises(ModelTimeoutError):
        async for text in aiter_texts(llm, RetryConfig(max_attempts=3), clock):
            texts.append(text)
    assert (texts, llm.calls) == (["Hel"], 1)


async def aiter_texts(llm: BaseLlm, config: RetryConfig, clock: FakeClock) -> AsyncIterator[str]:
    responses = generate_with_retries(
        llm, LlmRequest(), stream=True, config=config, before_attempt=lambda: None, clock=clock
    )
    async for response in responses:
        yield response.text


async def test_total_timeout_cuts_an_attempt_in_flight(clock) -> None:
    llm = Stalling(["stall"], timeout=None)
    with pytest.raises(ModelTimeoutError):
        await run(llm, RetryConfig(max_attempts=3, total_timeout=TINY), clock)
    assert llm.calls == 1  # the next wait would pass total_timeout


async def test_what_is_left_of_total_timeout_after_the_waits_bounds_the_next_attempt(
    clock,
) -> None:
    # 9.9 s of (fake) waiting leaves 0.1 s of a 10 s total for the second attempt.
    llm = Stalling([http_error(503), "stall", "never"], timeout=None)
    config = RetryConfig(
        max_attempts=3, initial_backoff=9.9, max_backoff=9.9, jitter_ratio=0.0, total_timeout=10
    )
    with pytest.raises(ModelTimeoutError):
        await run(llm, config, clock)
    assert (llm.calls, clock.sleeps) == (2, [9.9])


async def test_the_providers_own_timeout_error_is_not_taken_for_the_deadline(clock) -> None:
    llm = Stalling([TimeoutError("the SDK's own")], timeout=30.0)
    with pytest.raises(TimeoutError, match="the SDK's own") as raised:
        await run(llm, RetryConfig(), clock)
    assert not isinstance(raised.value, ModelTimeoutError)


async def test_an_attempt_within_its_timeout_is_untouched(clock) -> None:
    assert await run(Stalling(["ok"], timeout=30.0), RetryConfig(), clock) == ["ok"]
