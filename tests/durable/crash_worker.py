"""A worker process for the kill matrix: one two-tool parallel turn against the emulator.

``python crash_worker.py run`` creates the session and runs the turn; when
``CRASH_POINT`` names a point, the worker prints ``READY`` on stdout once it
is there and then blocks, so the test can SIGKILL it exactly at that point
(no timing involved). ``python crash_worker.py resume`` continues the
session with ``Runner.resume`` (it waits for a line on stdin first, so
several resumers start together) and prints ``RESUMED`` or ``ERROR <type>``.
``steadyflow resume crash_worker.py SESSION`` loads ``root_agent`` from here.

Environment: ``CRASH_DB`` (store URL), ``CRASH_SESSION`` (session id),
``CRASH_SIDE`` (the file each tool run appends a JSON line to),
``CRASH_POINT``, ``CRASH_STREAM`` ("1": stream the model's answers),
``OPENAI_BASE_URL``/``OPENAI_API_KEY`` (the emulator).

Points: ``after_user_event`` (in the first model call's before-model
callback), ``model_stream`` (at the first partial of the streamed final
answer), ``retry_wait`` (when the retry after the emulator's 503 is logged;
the backoff is 10 minutes), ``call_stored`` (the call event was yielded,
so stored; tools not begun), ``one_done`` / ``one_done_idempotent`` (the
other tool's result is journaled while ``charge`` / ``lookup`` is still
running), ``both_done`` (both results journaled, the response event not
stored). ``model_call`` is held by the test's emulator instead.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from typing import Any

from steadyflow import (
    FunctionTool,
    LlmAgent,
    RetryConfig,
    RunConfig,
    Runner,
    StreamingMode,
    ToolContext,
)
from steadyflow.models.openai import OpenAI
from steadyflow.sessions import open_session_service

APP, USER, MESSAGE = "shop", "u", "Charge order 7 and look it up."
POINT = os.environ.get("CRASH_POINT", "none")
RUNNING = len(sys.argv) > 1 and sys.argv[1] == "run"  # the first process (the one killed)


def signal_ready() -> None:
    print("READY", flush=True)


async def block() -> None:
    """Wait to be killed."""
    signal_ready()
    await asyncio.Event().wait()


def side_effect(tool: str, tool_context: ToolContext) -> None:
    with open(os.environ["CRASH_SIDE"], "a", encoding="utf-8") as side:
        side.write(json.dumps({"tool": tool, "key": tool_context.idempotency_key}) + "\n")


async def charge(order_id: str, tool_context: ToolContext) -> dict[str, Any]:
    """Charge an order (not idempotent: charging twice charges twice).

    Args:
        order_id: the order.
    """
    side_effect("charge", tool_context)
    if RUNNING and POINT == "one_done":
        await asyncio.Event().wait()  # still running when the worker dies
    return {"charged": order_id}


async def lookup(order_id: str, tool_context: ToolContext) -> dict[str, Any]:
    """Look an order up (idempotent: safe to run again).

    Args:
        order_id: the order.
    """
    side_effect("lookup", tool_context)
    if RUNNING and POINT == "one_done_idempotent":
        await asyncio.Event().wait()
    return {"status": "shipped", "order": order_id}


_model_calls = 0


async def before_model(callback_context: Any, llm_request: Any) -> None:
    global _model_calls
    _model_calls += 1
    if RUNNING and POINT == "after_user_event" and _model_calls == 1:
        await block()


root_agent = LlmAgent(
    name=APP,
    model=OpenAI("gpt-4o-mini"),
    instruction="Handle the order.",
    tools=[FunctionTool(charge), FunctionTool(lookup, idempotent=True)],
    before_model_callback=before_model,
)


class RetryLogged(logging.Handler):
    """Signals once the retry after the 503 is logged (the backoff sleep comes next)."""

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("model call failed, retrying"):
            signal_ready()


def watch_journal(service: Any) -> None:
    """Block after the journal write that leaves the point's number of results done."""
    wanted = {"one_done": 1, "one_done_idempotent": 1, "both_done": 2}.get(POINT)
    if wanted is None:
        return
    update = service.update_invocation

    async def update_invocation(record: Any) -> None:
        await update(record)
        done = [e for e in record.journal.values() if e.get("state") == "done"]
        if len(done) == wanted:
            await block()

    service.update_invocation = update_invocation


async def run() -> None:
    service = open_session_service(os.environ["CRASH_DB"])
    watch_journal(service)
    logging.getLogger("steadyflow.retry").addHandler(RetryLogged())
    runner = Runner(app_name=APP, agent=root_agent, session_service=service)
    await runner.create_session(user_id=USER, session_id=os.environ["CRASH_SESSION"])
    config = RunConfig(
        max_llm_calls=int(os.environ.get("CRASH_MAX_LLM_CALLS", "10")),
        streaming_mode=StreamingMode.SSE if os.environ.get("CRASH_STREAM") else StreamingMode.NONE,
        retry_config=RetryConfig(
            max_attempts=3, initial_backoff=600.0, max_backoff=600.0, jitter_ratio=0.0
        ),
    )
    events = runner.run_async(
        user_id=USER,
        session_id=os.environ["CRASH_SESSION"],
        new_message=MESSAGE,
        run_config=config,
    )
    async for event in events:
        if POINT == "call_stored" and not event.partial and event.get_function_calls():
            await block()
        if POINT == "model_stream" and event.partial and event.text:
            await block()
    await service.close()
    print("DONE", flush=True)


async def resume() -> None:
    service = open_session_service(os.environ["CRASH_DB"])
    runner = Runner(app_name=APP, agent=root_agent, session_service=service)
    await service.list_sessions(app_name=APP)  # connected before the start line
    signal_ready()
    sys.stdin.readline()
    try:
        events = [
            e
            async for e in runner.resume_async(user_id=USER, session_id=os.environ["CRASH_SESSION"])
        ]
    except Exception as error:
        print(f"ERROR {type(error).__name__}: {error}", flush=True)
        await service.close()
        sys.exit(3)
    await service.close()
    print(f"RESUMED {len(events)}", flush=True)


if __name__ == "__main__":
    asyncio.run(run() if RUNNING else resume())
