"""The public API used as a user would, for the type checkers (never run).

``make typecheck`` runs mypy and pyright (strict) over this module: an
annotation that stops saying what the API returns (an ``Any`` leaking out, a
descriptor read as its setter's type) fails there. ``assert_type`` marks what
each line proves; nothing here is collected by pytest (no ``test_`` name).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from typing import assert_type

from steadyflow import (
    Content,
    Event,
    FunctionTool,
    InMemoryRunner,
    LlmAgent,
    ModelHTTPError,
    Part,
    RetryConfig,
    RunConfig,
    Session,
)
from steadyflow.testing import ScriptedLlm


def get_weather(city: str) -> dict[str, str]:
    """The weather in ``city``."""
    return {"city": city, "sky": "clear"}


# Durations accept a timedelta or seconds and read back as float seconds;
# status codes accept any iterable and read back as a frozenset.
retry = RetryConfig(
    max_attempts=4,
    initial_backoff=timedelta(milliseconds=200),
    max_backoff=5,
    retryable_status_codes=[429, 503],
    total_timeout=timedelta(seconds=30),
)
assert_type(retry.initial_backoff, float)
assert_type(retry.max_backoff, float)
assert_type(retry.retryable_status_codes, frozenset[int])
assert_type(retry.total_timeout, float | None)

tool = FunctionTool(get_weather, idempotent=True)
agent = LlmAgent(
    name="weather",
    model=ScriptedLlm(["It is clear."]),
    instruction="Answer briefly.",
    tools=[tool, get_weather],
)
runner = InMemoryRunner(agent, app_name="typing")
message = Content(role="user", parts=[Part.from_text("Weather in Oslo?")])
assert_type(message.parts, list[Part])


async def converse() -> str:
    """An async conversation: sessions, events, parts and errors keep their types."""
    session = await runner.create_session(user_id="u1")
    assert_type(session, Session)
    events = runner.run_async(
        user_id="u1",
        session_id=session.id,
        new_message=message,
        run_config=RunConfig(retry_config=retry, max_llm_calls=10),
    )
    assert_type(events, AsyncIterator[Event])
    texts: list[str] = []
    try:
        async for event in events:
            assert_type(event, Event)
            if event.content is not None:
                texts.extend(part.text for part in event.content.parts if part.text)
    except ModelHTTPError as error:
        assert_type(error.status_code, int)
        raise
    return "".join(texts)


def converse_sync(session_id: str) -> Iterator[Event]:
    """The blocking twin yields the same events."""
    events = runner.run(user_id="u1", session_id=session_id, new_message=message)
    assert_type(events, Iterator[Event])
    return events
