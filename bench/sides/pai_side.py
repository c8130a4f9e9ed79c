"""pydantic-ai's side: ``Agent`` with its own ``FunctionModel`` test double.

Runs in the pydantic-ai virtualenv only. The model functions are async (a
sync one would be run in a worker thread) and answer from the messages like
steadyflow's ``InstantLlm``. Without a store, a run keeps nothing (the
quickstart's way); "memory" uses ``InMemoryConversationStore``, loading and
saving the conversation around each run. pydantic-ai ships no SQLite store.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from pydantic_ai import Agent, AgentRunResultEvent
from pydantic_ai.conversation import Conversation
from pydantic_ai.conversation_store import InMemoryConversationStore
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    PartDeltaEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from ..drivers import Setup, TurnStats

QUESTION = "What is the weather in Paris?"


def lookup_weather(city: str) -> dict[str, str]:
    """Look up the weather in a city.

    Args:
        city: the city's name.
    """
    return {"city": city, "forecast": "sunny"}


def _answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    last = messages[-1].parts[-1]
    if isinstance(last, ToolReturnPart):
        return ModelResponse(parts=[TextPart(f"{last.tool_name} says {last.content}")])
    if info.function_tools and isinstance(last, UserPromptPart):
        name = info.function_tools[0].name
        return ModelResponse(parts=[ToolCallPart(name, {"city": "Paris"})])
    return ModelResponse(parts=[TextPart(f"You said: {getattr(last, 'content', '')}")])


def _model(latency: float, chunks: int) -> FunctionModel:
    pieces = ["sunny "] * chunks

    async def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if latency:
            await asyncio.sleep(latency)
        return _answer(messages, info)

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for piece in pieces:
            yield piece

    return FunctionModel(answer, stream_function=stream)


@dataclass
class _Conversation:
    agent: Agent[None, str]
    conversation_id: str | None
    stream: bool


def _model_calls(messages: list[ModelMessage]) -> int:
    return sum(isinstance(m, ModelResponse) for m in messages)


def _is_chunk(event: Any) -> bool:
    if isinstance(event, PartStartEvent):
        return isinstance(event.part, TextPart)
    return isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta)


class PydanticAiAdapter:
    """Drives ``Agent.run`` / ``Agent.run_stream_events`` as pydantic-ai's docs do."""

    def __init__(self) -> None:
        self._agents: dict[Setup, Agent[None, str]] = {}
        self._store = InMemoryConversationStore()

    def supports(self, setup: Setup) -> str | None:
        if setup.store == "sqlite":
            return "no SQLite conversation store in pydantic-ai"
        if setup.retries:
            return "no model-call retry policy for its FunctionModel (retries live in SDK clients)"
        return None

    def note(self, setup: Setup) -> str:
        if setup.store == "default":
            return "Agent.run without history: nothing stored between turns"
        return "Agent.run + InMemoryConversationStore load/save around each run"

    def _agent(self, setup: Setup) -> Agent[None, str]:
        key = Setup(setup.tools, "any", 0, setup.latency, setup.stream_chunks)
        agent = self._agents.get(key)
        if agent is None:
            agent = Agent(
                _model(setup.latency, max(setup.stream_chunks, 1)),
                instructions="Answer briefly.",
                tools=[lookup_weather] if setup.tools else [],
            )
            self._agents[key] = agent
        return agent

    async def conversation(self, setup: Setup) -> _Conversation:
        conversation_id = None
        if setup.store != "default":
            messages: list[ModelMessage] = [
                ModelRequest(parts=[UserPromptPart(f"message {i}")])
                if i % 2 == 0
                else ModelResponse(parts=[TextPart(f"message {i}")])
                for i in range(setup.prior_events)
            ]
            conversation = Conversation(messages=messages, conversation_id=uuid.uuid4().hex)
            await self._store.save(conversation)
            conversation_id = conversation.conversation_id
        return _Conversation(self._agent(setup), conversation_id, bool(setup.stream_chunks))

    async def turn(self, conversation: _Conversation) -> TurnStats:
        if conversation.stream:
            chunks, calls = 0, 0
            async with conversation.agent.run_stream_events(QUESTION) as events:
                async for event in events:
                    chunks += _is_chunk(event)
                    if isinstance(event, AgentRunResultEvent):
                        calls = _model_calls(event.result.new_messages())
            return TurnStats(model_calls=calls, chunk_events=chunks)
        if conversation.conversation_id is None:
            result = await conversation.agent.run(QUESTION)
        else:
            loaded = await self._store.load(conversation.conversation_id)
            result = await conversation.agent.run(QUESTION, conversation=loaded)
            await self._store.save(result)
        return TurnStats(model_calls=_model_calls(result.new_messages()))

    async def close(self) -> None:
        return None


def make_adapter() -> Any:
    return PydanticAiAdapter()
