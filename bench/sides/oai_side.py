"""openai-agents' side: its ``Runner`` with a custom ``Model`` answering from the input.

Runs in the openai-agents virtualenv only. Tracing is switched off: its
default exporter sends traces to OpenAI's servers, which a local benchmark
must not do (and which would add work per turn). Without a session the
runner keeps nothing between turns (the quickstart's way); with one it
loads and stores the conversation through ``SQLiteSession``, whose only
non-file mode is an in-memory SQLite database.
"""

from __future__ import annotations

import asyncio
import tempfile
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseCreatedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseTextDeltaEvent,
)

from agents import (
    Agent,
    ModelRetrySettings,
    ModelSettings,
    Runner,
    SQLiteSession,
    function_tool,
    retry_policies,
    set_tracing_disabled,
)

from ..drivers import Setup, TurnStats

QUESTION = "What is the weather in Paris?"


@function_tool
def lookup_weather(city: str) -> dict[str, str]:
    """Look up the weather in a city.

    Args:
        city: the city's name.
    """
    return {"city": city, "forecast": "sunny"}


def _message(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id="msg",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(text=text, type="output_text", annotations=[])],
    )


def _last_text(item: Any) -> str:
    content = item.get("content", "") if isinstance(item, dict) else ""
    if isinstance(content, str):
        return content
    return "".join(c.get("text", "") for c in content if isinstance(c, dict))


class InstantModel(Model):
    """Answers from the input at once (or after ``latency`` seconds)."""

    def __init__(self, *, latency: float = 0.0, chunks: int = 1) -> None:
        self.latency = latency
        self._deltas = [
            ResponseTextDeltaEvent(
                type="response.output_text.delta",
                item_id="msg",
                output_index=0,
                content_index=0,
                delta="sunny ",
                logprobs=[],
                sequence_number=i + 1,
            )
            for i in range(chunks)
        ]
        self._streamed = _message("sunny " * chunks)

    def answer(self, input: str | list[Any], tools: list[Any]) -> Any:
        last = input if isinstance(input, str) else input[-1]
        if isinstance(last, dict) and last.get("type") == "function_call_output":
            return _message(f"lookup_weather says {last.get('output')}")
        is_user = isinstance(last, str) or last.get("role") == "user"
        if tools and is_user:
            call_id = "call_" + uuid.uuid4().hex[:16]
            return ResponseFunctionToolCall(
                id=call_id,
                call_id=call_id,
                type="function_call",
                name=tools[0].name,
                arguments='{"city": "Paris"}',
            )
        text = last if isinstance(last, str) else _last_text(last)
        return _message(f"You said: {text}")

    async def get_response(
        self, system_instructions: Any, input: Any, model_settings: Any, tools: Any,
        output_schema: Any, handoffs: Any, tracing: Any, **kwargs: Any,
    ) -> ModelResponse:  # fmt: skip
        if self.latency:
            await asyncio.sleep(self.latency)
        return ModelResponse(output=[self.answer(input, tools)], usage=Usage(), response_id=None)

    async def stream_response(
        self, system_instructions: Any, input: Any, model_settings: Any, tools: Any,
        output_schema: Any, handoffs: Any, tracing: Any, **kwargs: Any,
    ) -> AsyncIterator[Any]:  # fmt: skip
        response = Response(
            id="resp",
            created_at=0,
            model="instant",
            object="response",
            output=[self._streamed],
            tool_choice="none",
            tools=[],
            parallel_tool_calls=False,
            status="completed",
        )
        yield ResponseCreatedEvent(type="response.created", response=response, sequence_number=0)
        for delta in self._deltas:
            yield delta
        yield ResponseCompletedEvent(
            type="response.completed", response=response, sequence_number=len(self._deltas) + 1
        )


@dataclass
class _Conversation:
    agent: Agent[Any]
    session: SQLiteSession | None
    stream: bool


class OpenAIAgentsAdapter:
    """Drives ``Runner.run`` / ``Runner.run_streamed`` as the SDK's quickstart does."""

    def __init__(self) -> None:
        set_tracing_disabled(True)
        self._agents: dict[Setup, Agent[Any]] = {}
        self._tmp = tempfile.TemporaryDirectory(prefix="oai-bench-")

    def supports(self, setup: Setup) -> str | None:
        return None

    def note(self, setup: Setup) -> str:
        if setup.store == "default":
            return "Runner.run without a session: nothing stored between turns"
        where = "a SQLite file" if setup.store == "sqlite" else "in-memory SQLite"
        return f"Runner.run + SQLiteSession ({where}); history loaded and items stored per turn"

    def _agent(self, setup: Setup) -> Agent[Any]:
        key = Setup(setup.tools, "any", 0, setup.latency, setup.stream_chunks, setup.retries)
        agent = self._agents.get(key)
        if agent is None:
            settings = ModelSettings()
            if setup.retries:
                retry = ModelRetrySettings(max_retries=2, policy=retry_policies.http_status([429]))
                settings = ModelSettings(retry=retry)
            agent = Agent(
                name="assistant",
                instructions="Answer briefly.",
                model=InstantModel(latency=setup.latency, chunks=max(setup.stream_chunks, 1)),
                model_settings=settings,
                tools=[lookup_weather] if setup.tools else [],
            )
            self._agents[key] = agent
        return agent

    async def conversation(self, setup: Setup) -> _Conversation:
        session = None
        if setup.store != "default":
            path = Path(self._tmp.name) / "sessions.db" if setup.store == "sqlite" else ":memory:"
            session = SQLiteSession(uuid.uuid4().hex, db_path=path)
            items: list[Any] = [
                {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}"}
                for i in range(setup.prior_events)
            ]
            if items:
                await session.add_items(items)
        return _Conversation(self._agent(setup), session, bool(setup.stream_chunks))

    async def turn(self, conversation: _Conversation) -> TurnStats:
        if not conversation.stream:
            result = await Runner.run(conversation.agent, QUESTION, session=conversation.session)
            return TurnStats(model_calls=len(result.raw_responses))
        streamed = Runner.run_streamed(conversation.agent, QUESTION, session=conversation.session)
        chunks = 0
        async for event in streamed.stream_events():
            if event.type == "raw_response_event" and event.data.type.endswith("text.delta"):
                chunks += 1
        return TurnStats(model_calls=len(streamed.raw_responses), chunk_events=chunks)

    async def close(self) -> None:
        self._tmp.cleanup()


def make_adapter() -> Any:
    return OpenAIAgentsAdapter()
