"""The rule-based order-support responder, on neutral requests."""

from __future__ import annotations

from typing import Any

from steadyflow.testing.emulator import (
    EmulatedRequest,
    OrderSupportResponder,
    Reply,
    ToolCall,
    ToolResult,
    ToolSpec,
    Turn,
)

LOOKUP = ToolSpec(
    "lookup_order",
    "Look up an order.",
    {"type": "object", "properties": {"order_id": {"type": "integer"}}, "required": ["order_id"]},
)
CANCEL = ToolSpec(
    "cancel_order", "", {"type": "object", "properties": {"order": {"type": "string"}}}
)


def answer(*turns: Turn, tools: list[ToolSpec] | None = None) -> Any:
    request = EmulatedRequest(
        "openai", 1, "m", False, turns=list(turns), tools=[LOOKUP] if tools is None else tools
    )
    return OrderSupportResponder()(request)


def test_an_order_number_gets_a_lookup_call_with_the_schemas_name_and_type() -> None:
    reply = answer(Turn("user", "Where is order 812?"))
    assert reply == Reply(tool_calls=(ToolCall("lookup_order", {"order_id": 812}),))


def test_two_order_numbers_get_parallel_calls() -> None:
    reply = answer(Turn("user", "Where are #812 and 913?"))
    assert [c.args for c in reply.tool_calls] == [{"order_id": 812}, {"order_id": 913}]


def test_tool_results_are_summarized_as_text() -> None:
    result = ToolResult("lookup_order", {"order_id": 812, "status": "shipped", "eta": "Friday"})
    reply = answer(Turn("user", "Where is order 812?"), Turn("user", results=[result]))
    assert reply.text == "Order 812 - status: shipped, eta: Friday."
    assert not reply.tool_calls


def test_a_tool_error_is_reported_in_the_text() -> None:
    result = ToolResult("lookup_order", {"error": "no such order"})
    reply = answer(Turn("user", results=[result]))
    assert "no such order" in reply.text


def test_cancel_intent_picks_the_cancel_tool() -> None:
    reply = answer(Turn("user", "Please cancel order 777"), tools=[LOOKUP, CANCEL])
    assert reply.tool_calls == (ToolCall("cancel_order", {"order": "777"}),)


def test_no_order_number_asks_for_one() -> None:
    assert "order number" in answer(Turn("user", "Hello!"))


def test_no_suitable_tool_says_so() -> None:
    assert "no tool" in answer(Turn("user", "Where is order 812?"), tools=[])
