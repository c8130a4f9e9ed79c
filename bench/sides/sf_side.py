"""steadyflow's side: the runtime as a user runs it, with an instant fake model.

``InstantLlm`` is a plain ``BaseLlm`` subclass that answers from the request
(it records nothing): a declared tool not yet answered gets a call, a tool
result gets a text answer, anything else gets an echo. Streamed answers come
in pre-built chunks, so the model itself costs next to nothing per chunk.
"""

from __future__ import annotations

import asyncio
import tempfile
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from steadyflow import (
    BaseSessionService,
    Content,
    Event,
    InMemorySessionService,
    LlmAgent,
    Part,
    RetryConfig,
    RunConfig,
    Runner,
    StreamingMode,
)
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse

from ..drivers import Setup, TurnStats

__all__ = ["InstantLlm", "SteadyflowAdapter", "lookup_weather", "make_adapter", "sqlite_service"]

USER_ID = "bench-user"
QUESTION = "What is the weather in Paris?"


def lookup_weather(city: str) -> dict[str, str]:
    """Look up the weather in a city.

    Args:
        city: the city's name.
    """
    return {"city": city, "forecast": "sunny"}


class InstantLlm(BaseLlm):
    """A model that answers from the request at once (or after ``latency`` seconds).

    Args:
        latency: seconds to wait (on the event loop) before answering.
        chunks: when streaming, the answer comes in this many partial responses.
    """

    def __init__(self, *, latency: float = 0.0, chunks: int = 1) -> None:
        super().__init__(model="instant")
        self.latency = latency
        piece = Content(role="model", parts=[Part(text="sunny ")])
        self._partials = [LlmResponse(content=piece, partial=True) for _ in range(chunks)]
        self._streamed = LlmResponse.from_text("sunny " * chunks)

    def answer(self, request: LlmRequest) -> LlmResponse:
        """The complete answer to ``request``."""
        last = request.contents[-1]
        response = next((p.function_response for p in last.parts if p.function_response), None)
        if response is not None:
            return LlmResponse.from_text(f"{response.name} says {response.response}")
        tools = request.config.tools
        if tools and last.role == "user":
            call = Part.from_function_call(tools[0].name, {"city": "Paris"})
            return LlmResponse(content=Content(role="model", parts=[call]))
        return LlmResponse.from_text(f"You said: {last.text}")

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """Answer ``request``; with ``stream``, in pre-built chunks then the aggregate."""
        if self.latency:
            await asyncio.sleep(self.latency)
        if not stream:
            yield self.answer(request)
            return
        for partial in self._partials:
            yield partial
        yield self._streamed


def sqlite_service(path: Path) -> BaseSessionService | None:
    """A SQLite session store at ``path``, or None while the runtime has none."""
    try:
        from steadyflow.sessions import open_session_service
    except ImportError:
        return None
    try:
        return open_session_service(f"sqlite:///{path}")
    except (ImportError, ValueError):
        return None


@dataclass
class _Conversation:
    runner: Runner
    session_id: str
    run_config: RunConfig


class SteadyflowAdapter:
    """Drives ``Runner.run_async`` the way the README shows it."""

    def __init__(self) -> None:
        self._runners: dict[Setup, Runner] = {}
        self._tmp = tempfile.TemporaryDirectory(prefix="sf-bench-")

    def _store(self, kind: str) -> BaseSessionService | None:
        if kind in ("default", "memory"):
            return InMemorySessionService()
        return sqlite_service(Path(self._tmp.name) / f"{uuid.uuid4().hex}.db")

    def supports(self, setup: Setup) -> str | None:
        """SQLite needs the SQL session store (the ``sql`` extra)."""
        if setup.store == "sqlite" and self._store("sqlite") is None:
            return "no SQLite session store in this runtime yet"
        return None

    def note(self, setup: Setup) -> str:
        """Where events go."""
        store = "SQLite file" if setup.store == "sqlite" else "in-memory"
        return f"Runner + {store} session store; every complete event stored"

    def _runner(self, setup: Setup) -> Runner:
        key = Setup(setup.tools, setup.store, 0, setup.latency, setup.stream_chunks)
        runner = self._runners.get(key)
        if runner is None:
            service = self._store(setup.store)
            if service is None:
                raise RuntimeError(f"no {setup.store} session store available")
            agent = LlmAgent(
                name="assistant",
                model=InstantLlm(latency=setup.latency, chunks=max(setup.stream_chunks, 1)),
                instruction="Answer briefly.",
                tools=[lookup_weather] if setup.tools else [],
            )
            runner = Runner(app_name="bench", agent=agent, session_service=service)
            self._runners[key] = runner
        return runner

    async def conversation(self, setup: Setup) -> _Conversation:
        """A fresh session holding ``setup.prior_events`` messages."""
        runner = self._runner(setup)
        session = await runner.create_session(user_id=USER_ID)
        for index in range(setup.prior_events):
            author = "user" if index % 2 == 0 else "assistant"
            role = "user" if author == "user" else "model"
            event = Event(
                invocation_id=f"e-prior-{index // 2}",
                author=author,
                content=Content.from_text(f"message {index}", role=role),
            )
            await runner.session_service.append_event(session, event)
        run_config = RunConfig(
            streaming_mode=StreamingMode.SSE if setup.stream_chunks else StreamingMode.NONE,
            retry_config=RetryConfig(max_attempts=3) if setup.retries else RetryConfig(),
        )
        return _Conversation(runner, session.id, run_config)

    async def turn(self, conversation: _Conversation) -> TurnStats:
        """One user message, run to the final answer."""
        calls = chunks = 0
        async for event in conversation.runner.run_async(
            user_id=USER_ID,
            session_id=conversation.session_id,
            new_message=QUESTION,
            run_config=conversation.run_config,
        ):
            if event.partial:
                chunks += 1
            elif event.content is not None and event.content.role == "model":
                calls += 1
        return TurnStats(model_calls=calls, chunk_events=chunks)

    async def close(self) -> None:
        """Close the stores and remove the SQLite files."""
        for runner in self._runners.values():
            await runner.close()
        self._tmp.cleanup()


def make_adapter() -> Any:
    """The adapter the worker drives."""
    return SteadyflowAdapter()
