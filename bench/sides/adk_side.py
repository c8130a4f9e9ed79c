"""google-adk's side: its ``Runner`` with a custom ``BaseLlm`` (ADK has no test model).

Runs in the google-adk virtualenv only. The fake model answers from the
request exactly like steadyflow's ``InstantLlm``: a declared tool not yet
answered gets a call, a tool result gets text, anything else an echo.
"""

from __future__ import annotations

import asyncio
import tempfile
import uuid
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.events import Event
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.genai import types
from pydantic import PrivateAttr

from ..drivers import Setup, TurnStats

USER_ID = "bench-user"
QUESTION = "What is the weather in Paris?"


def lookup_weather(city: str) -> dict[str, str]:
    """Look up the weather in a city.

    Args:
        city: the city's name.
    """
    return {"city": city, "forecast": "sunny"}


def _text(text: str) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=text)])


class InstantLlm(BaseLlm):
    """Answers from the request at once (or after ``latency`` seconds)."""

    latency: float = 0.0
    chunks: int = 1
    _partials: list[LlmResponse] = PrivateAttr(default_factory=list)

    def model_post_init(self, context: Any, /) -> None:
        self._partials = [
            LlmResponse(content=_text("sunny "), partial=True) for _ in range(self.chunks)
        ]

    def answer(self, request: LlmRequest) -> LlmResponse:
        last = request.contents[-1]
        parts = last.parts or []
        response = next((p.function_response for p in parts if p.function_response), None)
        if response is not None:
            return LlmResponse(content=_text(f"{response.name} says {response.response}"))
        tools = request.config.tools if request.config else None
        if tools and last.role == "user":
            declarations = tools[0].function_declarations or []
            call = types.FunctionCall(name=declarations[0].name, args={"city": "Paris"})
            return LlmResponse(
                content=types.Content(role="model", parts=[types.Part(function_call=call)])
            )
        text = "".join(p.text or "" for p in parts)
        return LlmResponse(content=_text(f"You said: {text}"))

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        if self.latency:
            await asyncio.sleep(self.latency)
        if not stream:
            yield self.answer(llm_request)
            return
        for partial in self._partials:
            yield partial
        yield LlmResponse(content=_text("sunny " * self.chunks))


@dataclass
class _Conversation:
    runner: Runner
    session_id: str
    run_config: RunConfig


class AdkAdapter:
    """Drives ``Runner.run_async`` as ADK's quickstart does."""

    def __init__(self) -> None:
        self._runners: dict[Setup, Runner] = {}
        self._tmp = tempfile.TemporaryDirectory(prefix="adk-bench-")

    def supports(self, setup: Setup) -> str | None:
        if setup.retries:
            return "no retry policy for custom models (HttpRetryOptions covers Gemini only)"
        return None

    def note(self, setup: Setup) -> str:
        store = "SqliteSessionService" if setup.store == "sqlite" else "InMemorySessionService"
        return f"Runner + {store}; every complete event stored"

    def _runner(self, setup: Setup) -> Runner:
        key = Setup(setup.tools, setup.store, 0, setup.latency, setup.stream_chunks)
        runner = self._runners.get(key)
        if runner is None:
            if setup.store == "sqlite":
                path = Path(self._tmp.name) / f"{uuid.uuid4().hex}.db"
                service: Any = SqliteSessionService(str(path))
            else:
                service = InMemorySessionService()
            agent = LlmAgent(
                name="assistant",
                model=InstantLlm(
                    model="instant", latency=setup.latency, chunks=max(setup.stream_chunks, 1)
                ),
                instruction="Answer briefly.",
                tools=[lookup_weather] if setup.tools else [],
            )
            runner = Runner(app_name="bench", agent=agent, session_service=service)
            self._runners[key] = runner
        return runner

    async def conversation(self, setup: Setup) -> _Conversation:
        runner = self._runner(setup)
        service = runner.session_service
        session = await service.create_session(app_name="bench", user_id=USER_ID)
        for index in range(setup.prior_events):
            author = "user" if index % 2 == 0 else "assistant"
            event = Event(
                invocation_id=f"e-prior-{index // 2}",
                author=author,
                content=types.Content(
                    role="user" if author == "user" else "model",
                    parts=[types.Part(text=f"message {index}")],
                ),
            )
            await service.append_event(session, event)
        mode = StreamingMode.SSE if setup.stream_chunks else StreamingMode.NONE
        return _Conversation(runner, session.id, RunConfig(streaming_mode=mode))

    async def turn(self, conversation: _Conversation) -> TurnStats:
        calls = chunks = 0
        message = types.Content(role="user", parts=[types.Part(text=QUESTION)])
        async for event in conversation.runner.run_async(
            user_id=USER_ID,
            session_id=conversation.session_id,
            new_message=message,
            run_config=conversation.run_config,
        ):
            if event.partial:
                chunks += 1
            elif event.content is not None and event.content.role == "model":
                calls += 1
        return TurnStats(model_calls=calls, chunk_events=chunks)

    async def close(self) -> None:
        for runner in self._runners.values():
            await runner.close()
        self._tmp.cleanup()


def make_adapter() -> Any:
    return AdkAdapter()
