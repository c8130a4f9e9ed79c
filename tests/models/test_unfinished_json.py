"""A 200 whose body is unfinished JSON but fills its Content-Length: a bad answer, asked once.

A body cut in transit (no Content-Length: it ended with the connection) is
a connection error and retried; the same document under a Content-Length it
fills is what the server sent on purpose, so asking again would pay for the
same bad answer: ``ModelResponseError``, not retried, one counted attempt.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from steadyflow import LlmAgent, RetryConfig, RunConfig
from steadyflow.errors import ModelResponseError
from steadyflow.models.anthropic import Anthropic
from steadyflow.models.openai import OpenAI
from steadyflow.models.openai_responses import OpenAIResponses
from steadyflow.testing import FakeClock
from steadyflow.testing.harness import run_turn
from tests.support.hostile import HostileServer, Reply

ANSWER = json.dumps({"id": "x", "object": "chat.completion", "choices": [{"index": 0}]}).encode()
ADAPTERS: dict[str, Callable[[str], OpenAI | OpenAIResponses | Anthropic]] = {
    "openai": lambda url: OpenAI("gpt-4o-mini", api_key="k", base_url=f"{url}/v1"),
    "openai-responses": lambda url: OpenAIResponses(
        "gpt-4o-mini", api_key="k", base_url=f"{url}/v1"
    ),
    "anthropic": lambda url: Anthropic("claude-sonnet-4-5", api_key="k", base_url=url),
}


@pytest.mark.parametrize("provider", sorted(ADAPTERS))
async def test_unfinished_json_filling_its_length_is_one_bad_answer(
    provider: str, hostile: HostileServer, clock: FakeClock
) -> None:
    hostile.script(Reply(body=[ANSWER[:40]], framing="length"))
    llm = ADAPTERS[provider](hostile.url)
    agent = LlmAgent(name="a", model=llm, instruction="Answer.")
    retrying = RunConfig(retry_config=RetryConfig(max_attempts=3))

    try:
        result = await run_turn(agent, "hi", run_config=retrying)
    finally:
        await llm.aclose()

    assert isinstance(result.error, ModelResponseError), result.error
    assert len(hostile.requests) == 1
    (record,) = await result.runner.session_service.list_invocations(
        app_name="test_app", user_id="user", session_id=result.session_id
    )
    assert record.llm_calls == 1
