from typing import Literal

import pytest
from pydantic import BaseModel

from steadyflow import FunctionTool, ToolContext
from steadyflow.tools import ToolArgumentsError


class Address(BaseModel):
    city: str


def ship(
    order_id: str,
    speed: Literal["standard", "express"] = "standard",
    address: Address | None = None,
    tool_context: ToolContext | None = None,
) -> dict:
    """Ship an order.

    Longer explanation that the model also reads.

    Args:
        order_id: the order to ship.
        speed: how fast. Express costs
            more.
        address: where to, if not the default.
        tool_context: injected.

    Returns:
        the shipment.
    """
    return {"order_id": order_id, "speed": speed, "city": address.city if address else None}


def test_schema_comes_from_hints_and_docstring():
    declaration = FunctionTool(ship).declaration()
    assert declaration.name == "ship"
    assert declaration.description.startswith("Ship an order.")
    assert "Returns" not in declaration.description
    props = declaration.parameters["properties"]
    assert set(props) == {"order_id", "speed", "address"}
    assert props["speed"]["enum"] == ["standard", "express"]
    assert props["speed"]["description"] == "how fast. Express costs more."
    assert declaration.parameters["required"] == ["order_id"]
    assert "tool_context" not in props


async def test_arguments_are_validated_and_converted():
    tool = FunctionTool(ship)
    result = await tool.run_async(
        args={"order_id": "1", "address": {"city": "Oslo"}},
        tool_context=None,  # type: ignore[arg-type]
    )
    assert result == {"order_id": "1", "speed": "standard", "city": "Oslo"}


async def test_invalid_arguments_raise_naming_the_field():
    with pytest.raises(ToolArgumentsError, match="speed"):
        await FunctionTool(ship).run_async(
            args={"order_id": "1", "speed": "warp"}, tool_context=None
        )  # type: ignore[arg-type]


async def test_async_functions_are_awaited():
    async def fetch(n: int) -> int:
        """Fetch."""
        return n * 2

    assert await FunctionTool(fetch).run_async(args={"n": 2}, tool_context=None) == 4  # type: ignore[arg-type]


async def test_a_sync_function_returning_an_awaitable_has_it_awaited():
    async def later(n: int) -> dict:
        return {"n": n}

    def start(n: int):
        """Start."""
        return later(n)

    assert await FunctionTool(start).run_async(args={"n": 3}, tool_context=None) == {"n": 3}  # type: ignore[arg-type]


async def test_a_sync_functions_plain_results_come_back_as_returned():
    results = iter([{"a": 1}, [1, 2], "text", 7, 1.5, True, None])

    def next_result():
        """Next."""
        return next(results)

    tool = FunctionTool(next_result)
    got = [await tool.run_async(args={}, tool_context=None) for _ in range(7)]  # type: ignore[arg-type]
    assert got == [{"a": 1}, [1, 2], "text", 7, 1.5, True, None]


def test_names_must_be_identifiers():
    with pytest.raises(ValueError, match="identifier"):
        FunctionTool(ship, name="ship it")
