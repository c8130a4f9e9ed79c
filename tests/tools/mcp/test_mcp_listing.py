"""What a server lists: bad tools and reserved names left out, dead servers loud or optional."""

import asyncio
import logging

import pytest

from steadyflow import LlmAgent, Runner
from steadyflow.errors import ToolsetUnavailableError
from steadyflow.sessions.in_memory import InMemorySessionService
from steadyflow.testing import ScriptedLlm, call, run_turn
from steadyflow.tools.mcp import McpToolset

pytestmark = pytest.mark.slow

NOBODY = "http://127.0.0.1:9/mcp"  # discard: nothing listens on loopback


async def _turn(model: ScriptedLlm, *tools: object):
    runner = Runner(
        app_name="t",
        agent=LlmAgent(name="a", model=model, tools=list(tools)),
        session_service=InMemorySessionService(),
    )
    try:
        async with asyncio.timeout(20):
            return await run_turn(runner.agent, "q", runner=runner)
    finally:
        await runner.close()


def lookup_order(order: int) -> dict:
    """Look an order up locally."""
    return {"order": order}


async def test_a_tool_the_sdk_refuses_is_left_out_and_the_others_kept(hostile_toolset, caplog):
    model = ScriptedLlm([call("lookup", {"order": 812}), "found it"])
    with caplog.at_level(logging.WARNING, logger="steadyflow"):
        result = await _turn(model, hostile_toolset("odd-tools"))

    assert result.error is None
    assert model.requests[0].tool_names() == ["lookup"]
    assert [r.response for r in result.events[1].get_function_responses()] == [{"result": "found"}]
    (refused,) = [r.getMessage() for r in caplog.records if "'broken'" in r.getMessage()]
    assert "MCP server 'hostile'" in refused
    assert "inputSchema.type: Input should be 'object'" in refused


async def test_a_tool_whose_schema_is_not_json_schema_deeper_down_is_left_out(
    hostile_toolset, caplog
):
    toolset = hostile_toolset("odd-tools")
    try:
        with caplog.at_level(logging.WARNING, logger="steadyflow"):
            names = [t.name for t in await toolset.get_tools()]
    finally:
        await toolset.close()

    assert "broken_deeper" not in names and "lookup" in names
    (refused,) = [r.getMessage() for r in caplog.records if "'broken_deeper'" in r.getMessage()]
    assert "MCP server 'hostile'" in refused
    assert "not valid JSON Schema: properties/order/type: 12 is not valid" in refused


async def test_a_listing_the_sdk_refuses_whole_fails_the_step_typed(hostile_toolset, caplog):
    model = ScriptedLlm(["never asked"])
    with caplog.at_level(logging.WARNING, logger="steadyflow"):
        result = await _turn(model, hostile_toolset("misfits", env={"MCP_TEST_BAD_LIST": "1"}))

    assert type(result.error) is ToolsetUnavailableError
    assert result.error.toolset == "hostile"
    assert "tools/list sent an answer that does not fit the MCP schema (nextCursor:" in str(
        result.error
    )
    assert model.requests == []
    assert not [r for r in caplog.records if "left out" in r.getMessage()]  # no tool blamed


async def test_a_call_result_the_sdk_refuses_is_an_error_the_model_reads(hostile_toolset):
    model = ScriptedLlm([call("lookup", {"order": 812}), "sorry"])
    result = await _turn(model, hostile_toolset("misfits"))

    assert result.error is None
    (response,) = [r.response for r in result.events[1].get_function_responses()]
    assert response["error"].startswith(
        "MCP tool 'lookup' on 'hostile' sent an answer that does not fit the MCP schema (content"
    )


async def test_names_the_runtime_reserves_are_refused_with_a_warning(hostile_toolset, caplog):
    model = ScriptedLlm(["ok"])
    with caplog.at_level(logging.WARNING, logger="steadyflow"):
        await _turn(model, hostile_toolset("odd-tools"))

    offered = model.requests[0].tool_names()
    assert "steadyflow_request_confirmation" not in offered
    assert "transfer_to_agent" not in offered
    refusals = [r.getMessage() for r in caplog.records if "reserves" in r.getMessage()]
    assert len(refusals) == 2
    assert any("'steadyflow_request_confirmation'" in m for m in refusals)
    assert any("'transfer_to_agent'" in m for m in refusals)


async def test_an_optional_server_that_cannot_restart_names_the_tools_it_listed(
    hostile_toolset,
):
    model = ScriptedLlm([call("crash"), "carrying on without the orders tools"])
    result = await _turn(model, hostile_toolset("once", optional=True), lookup_order)

    assert result.error is None
    assert model.requests[0].tool_names() == ["lookup_order", "lookup", "crash"]
    assert model.requests[1].tool_names() == ["lookup_order"]
    (trace,) = await result.stored_traces()
    assert trace.steps[0].warnings is None
    (warning,) = trace.steps[1].warnings or []
    assert warning.startswith("optional toolset 'hostile' left out: could not connect")
    assert warning.endswith("(missing tools: lookup, crash)")


async def test_a_server_that_cannot_start_fails_the_step_naming_it():
    model = ScriptedLlm(["I have no tool to look up order 812"])
    toolset = McpToolset(command=["/nonexistent/orders-server"], name="orders")
    result = await _turn(model, toolset)

    assert isinstance(result.error, ToolsetUnavailableError)
    assert result.error.toolset == "orders"
    assert "could not connect" in result.error.reason
    assert model.requests == []
    (trace,) = await result.stored_traces()
    assert (trace.status, trace.error_type) == ("error", "ToolsetUnavailableError")


async def test_an_unreachable_http_server_fails_the_step_naming_it():
    model = ScriptedLlm(["never asked"])
    result = await _turn(model, McpToolset(url=NOBODY, name="gone"))

    assert isinstance(result.error, ToolsetUnavailableError)
    assert "toolset 'gone' is unavailable: could not connect" in str(result.error)
    assert model.requests == []


async def test_an_optional_toolset_that_cannot_load_is_left_out_with_warnings(caplog):
    toolset = McpToolset(url=NOBODY, name="orders", tool_filter=["lookup"], optional=True)
    model = ScriptedLlm(["no order tool today"])
    with caplog.at_level(logging.WARNING, logger="steadyflow"):
        result = await _turn(model, toolset, lookup_order)

    assert result.error is None
    assert model.requests[0].tool_names() == ["lookup_order"]
    (trace,) = await result.stored_traces()
    (warning,) = trace.steps[0].warnings or []
    assert warning.startswith("optional toolset 'orders' left out: could not connect")
    assert warning.endswith("(missing tools: lookup)")
    assert any(warning in r.getMessage() for r in caplog.records)
