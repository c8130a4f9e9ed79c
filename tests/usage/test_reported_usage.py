"""Usage a provider reports is checked: a broken report is charged an estimate, never trusted.

A real OpenAI-shaped server (``HostileServer``) answers with usage that is
negative, missing, not a number, or absurdly large. Under a per-invocation
``UsageLimits`` and a SQLite ``SpendLimit`` each of them is stopped after as
many requests as honest usage allows, and nothing stored goes below zero.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from steadyflow import LlmAgent, RunConfig, Runner, StreamingMode
from steadyflow.errors import UsageLimitExceededError
from steadyflow.models.openai import OpenAI
from steadyflow.sessions.sql import SqlSessionService
from steadyflow.testing import ScriptedLlm
from steadyflow.types import GenerateContentConfig, UsageMetadata
from steadyflow.usage import SpendLimit, UsageLimits
from tests.models.providers import SECRET
from tests.support.hostile import HostileServer, Reply, sse

from .helpers import answer, noop, records, start, tool_call, turn

QUESTION = "Where is my order? " * 200  # about 1,000 tokens: the estimate is close to honest
# Hard limits reserve input plus the most an answer may write: a small bound
# keeps each reservation near the honest usage, so the arithmetic allows 3.
BOUNDED = GenerateContentConfig(max_output_tokens=20)
HONEST = {"prompt_tokens": 1005, "completion_tokens": 12, "total_tokens": 1017}
HOSTILE = {
    "negative": {"prompt_tokens": -100000, "completion_tokens": 12, "total_tokens": -99988},
    "missing": None,
    "not a number": {"prompt_tokens": "lots", "completion_tokens": 12, "total_tokens": 12},
    "absurd": {"prompt_tokens": 10**30, "completion_tokens": 12, "total_tokens": 10**30},
}


def completion(message: dict[str, Any], usage: dict[str, Any] | None) -> Reply:
    choice = {"index": 0, "message": message, "finish_reason": "stop"}
    body: dict[str, Any] = {"id": "c1", "object": "chat.completion", "created": 1}
    body |= {"model": "gpt-4o", "choices": [choice]}
    if usage is not None:
        body["usage"] = usage
    return Reply(body=[json.dumps(body).encode()], framing="length")


def calls_noop(usage: dict[str, Any] | None) -> Reply:
    call = {"id": "call_1", "type": "function", "function": {"name": "noop", "arguments": "{}"}}
    return completion({"role": "assistant", "content": None, "tool_calls": [call]}, usage)


def says(text: str, usage: dict[str, Any] | None) -> Reply:
    return completion({"role": "assistant", "content": text}, usage)


@pytest.fixture
async def server() -> AsyncIterator[HostileServer]:
    async with HostileServer() as hostile:
        yield hostile


@pytest.fixture
async def llm(server: HostileServer) -> AsyncIterator[OpenAI]:
    adapter = OpenAI("gpt-4o", api_key=SECRET, base_url=f"{server.url}/v1")
    yield adapter
    await adapter.aclose()


@pytest.mark.parametrize("usage", [HONEST, *HOSTILE.values()], ids=["honest", *HOSTILE])
async def test_a_usage_limit_allows_what_honest_usage_allows(
    server: HostileServer, llm: OpenAI, usage: dict[str, Any] | None
) -> None:
    server.script(calls_noop(usage))  # the model calls a tool forever
    runner, sid = await start(
        LlmAgent(name="a", model=llm, tools=[noop], generate_content_config=BOUNDED)
    )
    limits = UsageLimits(max_total_tokens=3500)
    with pytest.raises(UsageLimitExceededError) as caught:
        await turn(runner, sid, RunConfig(usage_limits=limits, max_llm_calls=40), QUESTION)
    assert len(server.requests) == 3
    assert caught.value.limit == "max_total_tokens"
    (record,) = await records(runner, sid)
    assert 3000 < record.usage["input_tokens"] + record.usage["output_tokens"] <= 3500
    estimated = 0 if usage is HONEST else 3
    assert record.usage["estimated_attempts"] == estimated
    attempts = [a for step in record.trace.steps for a in step.attempts]
    assert [a.usage_estimated for a in attempts] == [True if estimated else None] * 3
    assert all(a.input_tokens is not None and a.input_tokens > 0 for a in attempts)


@pytest.mark.parametrize("usage", [HONEST, *HOSTILE.values()], ids=["honest", *HOSTILE])
async def test_a_sqlite_spend_limit_allows_what_honest_usage_allows(
    server: HostileServer, llm: OpenAI, usage: dict[str, Any] | None, tmp_path: Path
) -> None:
    server.script(says("It shipped.", usage))
    service = SqlSessionService(f"sqlite+aiosqlite:///{tmp_path / 'sessions.db'}")
    runner = Runner(
        app_name="app",
        agent=LlmAgent(name="a", model=llm, generate_content_config=BOUNDED),
        session_service=service,
    )
    config = RunConfig(spend_limits=[SpendLimit(scope="user", max_total_tokens=3500)])
    answered = 0
    try:
        with pytest.raises(UsageLimitExceededError):
            for _ in range(40):
                session = await runner.create_session(user_id="u")
                await turn(runner, session.id, config, QUESTION)
                answered += 1
        entries = await runner.spend_store.entries("app", 0.0)
    finally:
        await service.close()
    assert answered == len(server.requests) == 3
    assert [900 < entry.tokens < 1100 for entry in entries] == [True] * 3


async def test_an_invalid_report_is_logged_with_the_provider_name(
    server: HostileServer, llm: OpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    server.script(says("It shipped.", HOSTILE["negative"]))
    runner, sid = await start(LlmAgent(name="a", model=llm))
    with caplog.at_level(logging.WARNING, logger="steadyflow.models"):
        events = await turn(runner, sid, RunConfig(), QUESTION)
    assert events[-1].usage_metadata is None  # the invalid report reaches no event
    (message,) = [r.getMessage() for r in caplog.records if "invalid usage" in r.getMessage()]
    assert message.startswith("provider openai reported invalid usage (prompt_tokens=-100000")


async def test_a_custom_model_reporting_negative_usage_is_charged_an_estimate() -> None:
    bad = UsageMetadata(input_tokens=-100000, output_tokens=5, total_tokens=-99995)
    steps = [tool_call("noop", 1, 1) for _ in range(40)]
    for step in steps:
        step.usage_metadata = bad
    model = ScriptedLlm([*steps, answer("done", 1, 1)])
    runner, sid = await start(
        LlmAgent(name="a", model=model, tools=[noop], generate_content_config=BOUNDED)
    )
    limits = UsageLimits(max_total_tokens=3500)
    with pytest.raises(UsageLimitExceededError):
        await turn(runner, sid, RunConfig(usage_limits=limits), QUESTION)
    assert len(model.requests) == 3
    (record,) = await records(runner, sid)
    assert record.usage["input_tokens"] > 3000 and record.usage["estimated_attempts"] == 3


def streamed(text: str, pieces: int) -> Reply:
    """A streamed answer of ``text`` in ``pieces`` chunks and no usage chunk at all."""
    head = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o"}
    step = len(text) // pieces
    chunks = [
        {**head, "choices": [{"index": 0, "delta": {"content": text[i : i + step]}}]}
        for i in range(0, len(text), step)
    ]
    done = {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    body = sse(*(json.dumps(c) for c in [*chunks, done]), "[DONE]")
    return Reply(headers={"content-type": "text/event-stream"}, body=body)


async def test_a_streamed_answer_without_usage_is_charged_the_output_it_streamed(
    server: HostileServer, llm: OpenAI
) -> None:
    server.script(streamed("x" * 4000, pieces=8))  # 1,000 output tokens as the history counts
    runner, sid = await start(LlmAgent(name="a", model=llm))
    await turn(runner, sid, RunConfig(streaming_mode=StreamingMode.SSE))
    (record,) = await records(runner, sid)
    assert record.usage["estimated_attempts"] == 1
    assert 1000 <= record.usage["output_tokens"] <= 1010  # the whole answer, counted once
    (step,) = record.trace.steps
    assert (step.output_tokens, step.attempts[0].usage_estimated) == (
        record.usage["output_tokens"],
        True,
    )


async def test_a_custom_model_reporting_an_absurd_count_leaves_sqlite_spend_sane(
    tmp_path: Path,
) -> None:
    absurd = UsageMetadata(input_tokens=10**30, output_tokens=5, total_tokens=10**30 + 5)
    reply = answer("It shipped.", 1, 1)
    reply.usage_metadata = absurd
    model = ScriptedLlm([reply])
    service = SqlSessionService(f"sqlite+aiosqlite:///{tmp_path / 'sessions.db'}")
    runner = Runner(
        app_name="app",
        agent=LlmAgent(name="a", model=model, generate_content_config=BOUNDED),
        session_service=service,
    )
    config = RunConfig(spend_limits=[SpendLimit(scope="user", max_total_tokens=3500)])
    try:
        session = await runner.create_session(user_id="u")
        events = await turn(runner, session.id, config, QUESTION)
        (entry,) = await runner.spend_store.entries("app", 0.0)
    finally:
        await service.close()
    assert events[-1].text == "It shipped."
    assert 900 < entry.tokens < 1100  # the estimate, not 10**30 (an OverflowError in SQLite)
