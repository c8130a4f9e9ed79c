"""Every wait on an MCP server is bounded, every failure typed, no server process left.

The servers are hostile on purpose (``hostile.py``, a port that never
answers); each test sets short bounds and bounds its own time.
"""

import asyncio
import contextlib
import os
from pathlib import Path

import pytest

from steadyflow import LlmAgent, Runner
from steadyflow.errors import (
    McpResultTooLargeError,
    McpTimeoutError,
    ToolsetUnavailableError,
)
from steadyflow.sessions.in_memory import InMemorySessionService
from steadyflow.testing import ScriptedLlm, call, run_turn
from steadyflow.tools.mcp import McpToolset

pytestmark = pytest.mark.slow

TEST_BOUND = 20  # seconds any one of these tests may take, hostile server or not


async def _turn(toolset: McpToolset, model: ScriptedLlm):
    runner = Runner(
        app_name="t",
        agent=LlmAgent(name="a", model=model, tools=[toolset]),
        session_service=InMemorySessionService(),
    )
    try:
        async with asyncio.timeout(TEST_BOUND):
            return await run_turn(runner.agent, "q", runner=runner)
    finally:
        await runner.close()


def _pid(server_log: Path) -> int:
    """The pid the hostile server wrote when it started."""
    return int(server_log.read_text())


def _responses(result, index: int = 1) -> list[dict]:
    return [r.response for r in result.events[index].get_function_responses()]


def test_every_bound_is_on_by_default_with_the_documented_values():
    toolset = McpToolset(command=["server"])
    assert toolset.connect_timeout == 30
    assert toolset.list_timeout == 30
    assert toolset.max_list_pages == 100
    assert toolset.timeout == 300
    assert toolset.max_result_bytes == 16 * 1024 * 1024


async def test_a_stdio_server_that_never_answers_initialize_fails_the_step(
    hostile_toolset, server_log: Path
):
    model = ScriptedLlm(["never asked"])
    # Long enough for the server to start and write its pid, even on a loaded machine.
    toolset = hostile_toolset("silent", connect_timeout=3)
    async with asyncio.timeout(TEST_BOUND):
        result = await run_turn(LlmAgent(name="a", model=model, tools=[toolset]), "q")
    with pytest.raises(ProcessLookupError):  # stopped when the opening was abandoned
        os.kill(_pid(server_log), 0)

    assert isinstance(result.error, McpTimeoutError)
    assert (result.error.toolset, result.error.phase, result.error.timeout) == (
        "hostile",
        "connect",
        3,
    )
    assert "'hostile'" in str(result.error) and "within 3 s" in str(result.error)
    assert model.requests == []


async def test_an_http_server_that_accepts_and_never_answers_fails_the_step(silent_port):
    toolset = McpToolset(
        url=f"http://127.0.0.1:{silent_port}/mcp", name="mute", connect_timeout=0.5
    )
    model = ScriptedLlm(["never asked"])
    result = await _turn(toolset, model)

    assert isinstance(result.error, McpTimeoutError)
    assert (result.error.toolset, result.error.phase) == ("mute", "connect")
    assert model.requests == []


async def test_a_server_that_never_answers_tools_list_fails_the_step(hostile_toolset):
    model = ScriptedLlm(["never asked"])
    result = await _turn(hostile_toolset("no-list", list_timeout=0.5), model)

    assert isinstance(result.error, McpTimeoutError)
    assert (result.error.toolset, result.error.phase) == ("hostile", "list")
    assert model.requests == []


async def test_a_next_cursor_that_never_ends_stops_at_the_page_cap(hostile_toolset):
    model = ScriptedLlm(["never asked"])
    result = await _turn(hostile_toolset("endless-pages", max_list_pages=5), model)

    assert type(result.error) is ToolsetUnavailableError
    assert result.error.toolset == "hostile"
    assert "max_list_pages=5" in result.error.reason
    assert model.requests == []


async def test_a_call_never_answered_is_a_timeout_error_the_model_reads(hostile_toolset):
    model = ScriptedLlm([call("lookup", {"order": 812}), "it timed out"])
    result = await _turn(hostile_toolset("no-call", timeout=0.5), model)

    assert result.error is None
    assert _responses(result) == [
        {
            "error": "MCP tool 'lookup' on 'hostile' timed out after 0.5 s (the call was "
            "cancelled)",
            "timeout": 0.5,
        }
    ]
    (trace,) = await result.stored_traces()
    (tool,) = trace.steps[0].tools
    assert (tool.status, tool.error_type, tool.server) == (
        "error",
        "McpCallTimeoutError",
        "hostile",
    )
    assert result.final_text == "it timed out"


async def test_a_stdio_server_stuck_in_initialize_is_gone_after_cancel_and_close(
    hostile_toolset, server_log: Path
):
    toolset = hostile_toolset("silent", connect_timeout=None)
    runner = Runner(
        app_name="t",
        agent=LlmAgent(name="a", model=ScriptedLlm(["never asked"]), tools=[toolset]),
        session_service=InMemorySessionService(),
    )
    os.mkfifo(server_log)  # reading it waits for the server to write its pid
    async with asyncio.timeout(TEST_BOUND):
        turn = asyncio.create_task(run_turn(runner.agent, "q", runner=runner))
        try:
            pid = int(await asyncio.to_thread(server_log.read_text))
        except BaseException:  # no server came: the reader still waiting is let go
            with contextlib.suppress(OSError):
                os.close(os.open(server_log, os.O_WRONLY | os.O_NONBLOCK))
            raise
        turn.cancel()
        with pytest.raises(asyncio.CancelledError):
            await turn
        await runner.close()

    with pytest.raises(ProcessLookupError):  # gone, and reaped (a zombie would answer)
        os.kill(pid, 0)


async def test_bytes_that_are_not_utf8_are_replaced_and_the_call_answers_at_once(
    hostile_toolset,
):
    model = ScriptedLlm([call("lookup", {"order": 812}), "ok"])
    result = await _turn(hostile_toolset("non-utf8", timeout=TEST_BOUND * 2), model)

    assert result.error is None
    assert _responses(result) == [{"result": "caf\ufffd au lait"}]


async def test_a_result_over_max_result_bytes_is_a_typed_error_at_once(hostile_toolset):
    big = hostile_toolset(
        "big",
        env={"MCP_TEST_BYTES": str(2 * 1024 * 1024)},
        max_result_bytes=1024 * 1024,
        timeout=TEST_BOUND * 2,
    )
    try:
        async with asyncio.timeout(TEST_BOUND):
            await big.get_tools()
            with pytest.raises(McpResultTooLargeError) as raised:
                await big.call_tool("lookup", {})
            assert raised.value.limit == 1024 * 1024
            assert raised.value.response["max_result_bytes"] == 1024 * 1024
            assert "'hostile'" in raised.value.response["error"]
            # The connection was closed; the next call starts the server again.
            with pytest.raises(McpResultTooLargeError):
                await big.call_tool("lookup", {})
    finally:
        await big.close()


async def test_an_http_result_over_max_result_bytes_is_a_typed_error(http_port):
    toolset = McpToolset(
        url=f"http://127.0.0.1:{http_port}/mcp", name="web", max_result_bytes=64 * 1024
    )
    try:
        async with asyncio.timeout(TEST_BOUND):
            with pytest.raises(McpResultTooLargeError) as raised:
                await toolset.call_tool("blob", {"size": 128 * 1024})
            small = await toolset.call_tool("blob", {"size": 1024})
    finally:
        await toolset.close()
    assert (raised.value.server, raised.value.limit) == ("web", 64 * 1024)
    assert small.content[0].text == "x" * 1024  # type: ignore[union-attr]


async def test_a_result_under_max_result_bytes_is_read_whole(hostile_toolset):
    size = 3 * 1024 * 1024 + 17  # several pipe reads, not a round number
    big = hostile_toolset("big", env={"MCP_TEST_BYTES": str(size)})
    try:
        async with asyncio.timeout(TEST_BOUND):
            await big.get_tools()
            result = await big.call_tool("lookup", {})
    finally:
        await big.close()
    assert result.content[0].text == "x" * size  # type: ignore[union-attr]
