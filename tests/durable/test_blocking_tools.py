"""A synchronous tool or callback that blocks holds up neither other sessions nor its lease.

Plain functions run in a worker thread, so the event loop goes on: another
session's turn completes meanwhile, and a resumer in another process finds
the blocked owner alive (same host: its pid and start time) and never takes
its invocation over, whatever its lease says. Once the owner is gone, its
invocation is taken at once.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time
from pathlib import Path

from steadyflow import InMemoryRunner, LlmAgent, Runner
from steadyflow.durable import INTERRUPTED_RESPONSE, SweepResult, resume_expired
from steadyflow.sessions import InvocationStatus, open_session_service
from steadyflow.testing import ScriptedLlm, call

WORKER = Path(__file__).parent / "workers" / "blocking_tool.py"
BOUND = 10.0  # seconds a blocked wait may take before the test fails (never reached when fixed)


async def two_sessions_at_once(runner: InMemoryRunner, released: threading.Event) -> list[str]:
    """Session A's turn blocks until session B's turn has ended; both answers."""
    a = await runner.create_session(user_id="a")
    b = await runner.create_session(user_id="b")

    async def turn(user: str, session_id: str) -> str:
        events = [
            e async for e in runner.run_async(user_id=user, session_id=session_id, new_message="go")
        ]
        if user == "b":
            released.set()
        return events[-1].text or ""

    first = asyncio.create_task(turn("a", a.id))
    await asyncio.sleep(0)  # A starts first and reaches its blocking call
    return list(await asyncio.gather(first, turn("b", b.id)))


async def test_a_blocking_sync_tool_does_not_stall_another_session():
    released = threading.Event()

    def wait_for_b() -> dict:
        """Block until the other session's turn is over."""
        return {"released": released.wait(BOUND)}

    model = ScriptedLlm([call("wait_for_b", {}), "b answered", "a answered"])
    runner = InMemoryRunner(LlmAgent(name="a", model=model, tools=[wait_for_b]))

    answers = await two_sessions_at_once(runner, released)

    assert answers == ["a answered", "b answered"]
    results = [p.function_response for c in model.requests[-1].contents for p in c.parts]
    assert [r.response for r in results if r is not None] == [{"released": True}]


async def test_a_blocking_sync_callback_does_not_stall_another_session():
    released = threading.Event()
    waited: list[bool] = []

    def wait_for_b(callback_context, llm_request):
        if callback_context.invocation_context.session.user_id == "a":
            waited.append(released.wait(BOUND))

    model = ScriptedLlm(["b answered", "a answered"])
    runner = InMemoryRunner(LlmAgent(name="a", model=model, before_model_callback=wait_for_b))

    answers = await two_sessions_at_once(runner, released)

    assert (answers, waited) == (["a answered", "b answered"], [True])


async def read_line(stream: asyncio.StreamReader) -> str:
    return (await asyncio.wait_for(stream.readline(), BOUND)).decode().strip()


async def test_a_live_owner_blocked_in_a_sync_tool_is_never_taken_over(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'sessions.db'}"
    worker = await asyncio.create_subprocess_exec(
        sys.executable,
        str(WORKER),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "WORKER_DB": url},
    )
    assert worker.stdout is not None
    service = open_session_service(url)
    try:
        session_id = (await read_line(worker.stdout)).removeprefix("SESSION ")
        assert await read_line(worker.stdout) == "READY"
        model = ScriptedLlm(["I could not confirm the refund."])
        runner = Runner(
            app_name="shop", agent=LlmAgent(name="shop", model=model), session_service=service
        )

        an_hour_later = [o async for o in resume_expired(runner, clock=lambda: time.time() + 3600)]

        assert [o.result for o in an_hour_later] == [SweepResult.LIVE]
        assert model.requests == []

        worker.send_signal(signal.SIGKILL)  # the owner dies with its tool unfinished
        await asyncio.wait_for(worker.wait(), BOUND)
        after_kill = [o async for o in resume_expired(runner)]

        assert [(o.result, o.detail) for o in after_kill] == [(SweepResult.RESUMED, "completed")]
        results = [p.function_response for c in model.requests[0].contents for p in c.parts]
        assert [r.response for r in results if r is not None] == [INTERRUPTED_RESPONSE]
        (record,) = await service.list_invocations(
            app_name="shop", user_id="u", session_id=session_id
        )
        assert (record.status, record.resume_count) == (InvocationStatus.COMPLETED, 1)
    finally:
        if worker.returncode is None:
            worker.kill()
            await worker.wait()
        await service.close()
