"""McpToolset against real MCP servers: transports, lists, errors, timeouts, crashes."""

import os
from pathlib import Path

import pytest
from tests.support.otel import span_exporter

from steadyflow import LlmAgent, Runner
from steadyflow.errors import ConfigurationError
from steadyflow.sessions.in_memory import InMemorySessionService
from steadyflow.testing import ScriptedLlm, call, run_turn
from steadyflow.tools.mcp import McpTool, McpToolset

pytestmark = pytest.mark.slow


def double(n: int) -> int:
    """Double a number."""
    return 2 * n


async def _turn(toolset: McpToolset, model: ScriptedLlm, *extra: object):
    runner = Runner(
        app_name="t",
        agent=LlmAgent(name="a", model=model, tools=[*extra, toolset]),
        session_service=InMemorySessionService(),
    )
    try:
        return await run_turn(runner.agent, "q", runner=runner)
    finally:
        await runner.close()


def _text(path: Path) -> str:
    return path.read_text()


def _responses(result, index: int = 1) -> list[dict]:
    return [r.response for r in result.events[index].get_function_responses()]


async def test_stdio_tools_are_declared_prefixed_and_called_in_a_turn(stdio_toolset):
    model = ScriptedLlm([call("t_add", {"a": 2, "b": 3}), "5"])
    result = await _turn(stdio_toolset(tool_name_prefix="t_"), model)

    assert result.error is None
    names = model.requests[0].tool_names()
    assert "t_add" in names and "t_get_weather" in names  # "get-weather" made an identifier
    (declared,) = [d for d in model.requests[0].config.tools if d.name == "t_add"]
    assert declared.parameters["required"] == ["a", "b"]
    assert _responses(result) == [{"result": 5}]


async def test_tool_filter_takes_names_or_a_predicate(stdio_toolset):
    by_name = stdio_toolset(tool_filter=["add", "get-weather"])
    by_predicate = stdio_toolset(tool_filter=lambda tool: tool.name.startswith("s"))
    try:
        assert [t.name for t in await by_name.get_tools()] == ["add", "get_weather"]
        assert [t.name for t in await by_predicate.get_tools()] == ["slow"]
    finally:
        await by_name.close()
        await by_predicate.close()


async def test_streamable_http_transport_lists_and_calls(http_port):
    toolset = McpToolset(url=f"http://127.0.0.1:{http_port}/mcp", headers={"x-team": "t"})
    model = ScriptedLlm([call("get_weather", {"city": "Oslo"}), "clear"])
    result = await _turn(toolset, model)

    assert result.error is None
    assert _responses(result) == [{"city": "Oslo", "sky": "clear"}]


async def test_sse_transport_lists_and_calls(sse_port):
    toolset = McpToolset(url=f"http://127.0.0.1:{sse_port}/sse", transport="sse")
    model = ScriptedLlm([call("add", {"a": 1, "b": 1}), "2"])
    result = await _turn(toolset, model)

    assert _responses(result) == [{"result": 2}]


async def test_an_is_error_result_is_an_error_response_the_model_reads(stdio_toolset):
    model = ScriptedLlm([call("refuse", {"reason": "closed"}), "sorry"])
    result = await _turn(stdio_toolset(), model)

    assert result.error is None
    assert _responses(result) == [
        {"error": "Error executing tool refuse: refused: closed", "is_error": True}
    ]
    assert result.final_text == "sorry"
    (trace,) = await result.stored_traces()
    (tool,) = trace.steps[0].tools
    assert (tool.name, tool.status, tool.error_type) == ("refuse", "error", "ToolResponseError")


async def test_arguments_failing_the_input_schema_are_refused_before_the_call(stdio_toolset):
    model = ScriptedLlm([call("add", {"a": "two"}), "ok"])
    result = await _turn(stdio_toolset(), model)

    (response,) = _responses(result)
    assert response["error"].startswith("invalid arguments for tool 'add'")
    assert "a: 'two' is not of type 'integer'" in response["error"]
    assert "'b' is a required property" in response["error"]


async def test_a_call_past_the_timeout_is_an_error_and_the_server_sees_the_cancel(
    stdio_toolset, server_log: Path
):
    toolset = stdio_toolset(timeout=0.5)
    try:
        model = ScriptedLlm([call("slow", {"seconds": 60}), call("add", {"a": 1, "b": 2}), "ok"])
        result = await run_turn(LlmAgent(name="a", model=model, tools=[toolset]), "q")

        assert result.error is None
        (response,) = _responses(result)
        assert response == {
            "error": "MCP tool 'slow' on 'test-server' timed out after 0.5 s (the call was "
            "cancelled)",
            "timeout": 0.5,
        }
        assert _responses(result, 3) == [{"result": 3}]  # the session is still good
        assert _text(server_log) == "slow cancelled\n"
    finally:
        await toolset.close()


async def test_a_server_crash_mid_call_is_an_error_and_the_next_call_reconnects(stdio_toolset):
    toolset = stdio_toolset()
    model = ScriptedLlm([call("pid"), call("crash"), call("pid"), "ok"])
    result = await _turn(toolset, model)

    assert result.error is None
    (first,) = _responses(result, 1)
    assert _responses(result, 3) == [
        {"error": "MCP tool 'crash' on 'test-server': the connection dropped during the call"}
    ]
    (again,) = _responses(result, 5)
    assert again["result"] != first["result"]  # a new server process answered


async def test_a_list_changed_notification_refreshes_the_tools_next_step(stdio_toolset):
    model = ScriptedLlm([call("grow"), call("extra"), "ok"])
    result = await _turn(stdio_toolset(), model)

    assert "extra" not in model.requests[0].tool_names()
    assert "extra" in model.requests[1].tool_names()
    assert _responses(result, 3) == [{"result": "extra!"}]


async def test_a_parallel_batch_mixes_function_and_mcp_tools(stdio_toolset):
    model = ScriptedLlm(
        [[call("add", {"a": 1, "b": 2}), call("double", {"n": 4}), call("pid")], "done"]
    )
    result = await _turn(stdio_toolset(), model, double)

    assert result.error is None
    add, doubled, pid = _responses(result)
    assert (add, doubled) == ({"result": 3}, {"result": 8})
    assert isinstance(pid["result"], int)


async def test_tool_callbacks_see_mcp_tools_like_function_tools(stdio_toolset):
    seen: list[tuple[str, str, dict]] = []

    def before(tool, args, tool_context):
        seen.append(("before", tool.name, dict(args)))
        return {"result": 99} if args.get("a") == 0 else None

    def after(tool, args, tool_context, tool_response):
        seen.append(("after", tool.name, tool_response))
        return {**tool_response, "checked": isinstance(tool, McpTool)}

    model = ScriptedLlm([call("add", {"a": 0, "b": 1}), call("add", {"a": 1, "b": 1}), "ok"])
    toolset = stdio_toolset()
    agent = LlmAgent(
        name="a",
        model=model,
        tools=[toolset],
        before_tool_callback=before,
        after_tool_callback=after,
    )
    try:
        result = await run_turn(agent, "q")
    finally:
        await toolset.close()

    assert _responses(result, 1) == [{"result": 99, "checked": True}]
    assert _responses(result, 3) == [{"result": 2, "checked": True}]
    assert [entry[:2] for entry in seen] == [("before", "add"), ("after", "add")] * 2


async def test_the_execute_tool_span_names_the_mcp_server(stdio_toolset):
    exporter = span_exporter()
    exporter.clear()
    model = ScriptedLlm([call("add", {"a": 1, "b": 2}), "3"])
    await _turn(stdio_toolset(), model)

    (span,) = [s for s in exporter.get_finished_spans() if s.name == "execute_tool add"]
    exporter.clear()
    assert span.attributes["mcp.method.name"] == "tools/call"
    assert span.attributes["steadyflow.mcp.server"] == "test-server"
    assert span.attributes["gen_ai.tool.name"] == "add"


async def test_annotations_make_tools_idempotent_or_destructive(stdio_toolset):
    toolset = stdio_toolset()
    try:
        tools = {t.name: t for t in await toolset.get_tools()}
    finally:
        await toolset.close()
    assert [n for n, t in tools.items() if t.idempotent] == ["add", "get_weather"]
    assert [n for n, t in tools.items() if t.is_idempotent] == ["add", "get_weather"]  # resume
    # Per the MCP spec destructiveHint defaults to true: only read-only tools and those
    # saying destructiveHint: false are not destructive (unannotated ones are).
    assert {n for n, t in tools.items() if not t.destructive} == {"add", "add_note"}
    assert tools["delete_everything"].destructive and tools["pid"].destructive


async def test_runner_close_stops_the_stdio_server(stdio_toolset):
    model = ScriptedLlm([call("pid"), "ok"])
    result = await _turn(stdio_toolset(), model)
    (response,) = _responses(result)

    with pytest.raises(ProcessLookupError):
        os.kill(response["result"], 0)


async def test_one_session_per_event_loop_and_a_fresh_one_after_close(stdio_toolset):
    toolset = stdio_toolset()
    first = await toolset.call_tool("pid", {})
    same = await toolset.call_tool("pid", {})
    await toolset.close()
    reopened = await toolset.call_tool("pid", {})
    await toolset.close()
    assert first.structured_content == same.structured_content != reopened.structured_content


def test_bad_configuration_is_refused_with_a_clear_error():
    with pytest.raises(ConfigurationError, match="exactly one of command="):
        McpToolset()
    with pytest.raises(ConfigurationError, match="'sse' does not fit command="):
        McpToolset(command=["x"], transport="sse")
    with pytest.raises(ConfigurationError, match="timeout must be positive"):
        McpToolset(url="http://x", timeout=0)
    with pytest.raises(ConfigurationError, match="list_timeout must be positive seconds or None"):
        McpToolset(url="http://x", list_timeout="30")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="max_result_bytes must be a positive integer"):
        McpToolset(url="http://x", max_result_bytes=0)
    with pytest.raises(ConfigurationError, match="max_list_pages must be a positive integer"):
        McpToolset(url="http://x", max_list_pages=2.5)  # type: ignore[arg-type]
