"""Answers with exact usage, and a runner around them, for the usage tests."""

from __future__ import annotations

from steadyflow import LlmAgent, RunConfig, Runner
from steadyflow.models import LlmResponse
from steadyflow.sessions import BaseSessionService, InMemorySessionService
from steadyflow.types import Content, FunctionCall, Part, UsageMetadata


def usage(inp: int, out: int, **categories: int) -> UsageMetadata:
    return UsageMetadata(input_tokens=inp, output_tokens=out, total_tokens=inp + out, **categories)


def answer(text: str, inp: int, out: int, **categories: int) -> LlmResponse:
    """A text answer that reports ``inp`` input and ``out`` output tokens."""
    return LlmResponse(
        content=Content.from_text(text, role="model"),
        finish_reason="STOP",
        usage_metadata=usage(inp, out, **categories),
    )


def tool_call(name: str, inp: int, out: int, **args: str) -> LlmResponse:
    """A function-call answer that reports usage."""
    part = Part(function_call=FunctionCall(id=f"c-{name}", name=name, args=args))
    return LlmResponse(
        content=Content(role="model", parts=[part]),
        finish_reason="STOP",
        usage_metadata=usage(inp, out),
    )


def noop() -> dict:
    """Does nothing."""
    return {"ok": True}


async def start(agent: LlmAgent, service: BaseSessionService | None = None) -> tuple[Runner, str]:
    """A runner for ``agent`` and a new session of user ``u``."""
    runner = Runner(
        app_name="app", agent=agent, session_service=service or InMemorySessionService()
    )
    session = await runner.create_session(user_id="u")
    return runner, session.id


async def turn(runner: Runner, session_id: str, config: RunConfig, message: str = "hi") -> list:
    """One turn's events (its error propagates)."""
    return [
        e
        async for e in runner.run_async(
            user_id="u", session_id=session_id, new_message=message, run_config=config
        )
    ]


async def records(runner: Runner, session_id: str) -> list:
    """The session's invocation records, oldest first."""
    return await runner.session_service.list_invocations(
        app_name="app", user_id="u", session_id=session_id
    )
