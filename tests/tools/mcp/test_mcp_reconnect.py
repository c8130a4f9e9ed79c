"""A streamable-HTTP server that restarts between two calls: the session is opened again."""

import asyncio
import logging

import pytest
from tests.tools.mcp.conftest import ServerProcess

from steadyflow import LlmAgent, Runner
from steadyflow.sessions.in_memory import InMemorySessionService
from steadyflow.testing import ScriptedLlm, call, run_turn
from steadyflow.tools.mcp import McpToolset

pytestmark = pytest.mark.slow


async def test_a_call_after_a_server_restart_reopens_the_session_and_is_sent_again(
    http_server: ServerProcess, caplog
):
    toolset = McpToolset(url=f"http://127.0.0.1:{http_server.port}/mcp", name="restarting")
    model = ScriptedLlm([call("pid"), "first", call("pid"), "second"])
    runner = Runner(
        app_name="t",
        agent=LlmAgent(name="a", model=model, tools=[toolset]),
        session_service=InMemorySessionService(),
    )
    try:
        async with asyncio.timeout(30):
            first = await run_turn(runner.agent, "q", runner=runner)
            await asyncio.to_thread(http_server.restart)
            with caplog.at_level(logging.WARNING, logger="steadyflow.tools.mcp"):
                second = await run_turn(
                    runner.agent, "again", runner=runner, session_id=first.session_id
                )
    finally:
        await runner.close()

    (before,) = [r.response for r in first.events[1].get_function_responses()]
    (after,) = [r.response for r in second.events[1].get_function_responses()]
    assert second.error is None
    assert isinstance(after["result"], int) and after["result"] != before["result"]
    (reopened,) = [r.getMessage() for r in caplog.records if "lost its session" in r.getMessage()]
    assert "'restarting'" in reopened and "Session not found" in reopened
