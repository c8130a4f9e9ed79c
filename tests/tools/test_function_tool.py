import threading
from typing import Any, Literal

import pytest
from pydantic import BaseModel, PydanticUserError

import steadyflow
import steadyflow.errors
from steadyflow import FunctionTool, LlmAgent, ToolContext
from steadyflow.testing import ScriptedLlm
from steadyflow.tools import ToolArgumentsError, ToolDefinitionError


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


def _definition_error(func: Any) -> ToolDefinitionError:
    """The error building an agent with ``func`` as a tool raises (where users meet it)."""
    with pytest.raises(ToolDefinitionError) as caught:
        LlmAgent(name="clerk", model=ScriptedLlm([]), tools=[func])
    return caught.value


def test_star_args_are_refused_naming_the_tool_and_the_parameter():
    def tag(*ids: str, **opts: str) -> dict:
        return {}

    error = _definition_error(tag)
    assert (error.tool_name, error.parameter) == ("tag", "ids")
    assert "*ids" in str(error) and "'tag'" in str(error)


def test_star_kwargs_are_refused_naming_the_parameter():
    def tag(label: str, **opts: str) -> dict:
        return {}

    error = _definition_error(tag)
    assert error.parameter == "opts"
    assert "**opts" in str(error)


def test_an_untyped_parameter_is_refused_not_given_an_empty_schema():
    def lookup(order_id, verbose: bool = False) -> dict:  # type: ignore[no-untyped-def]
        return {}

    error = _definition_error(lookup)
    assert (error.tool_name, error.parameter) == ("lookup", "order_id")
    assert "type hint" in str(error) and "Any" in str(error)


def test_a_parameter_annotated_any_takes_any_json_value():
    def note(payload: Any) -> dict:
        return {}

    assert FunctionTool(note).declaration().parameters["properties"] == {"payload": {}}


def test_a_docstring_naming_a_missing_parameter_is_refused():
    def refund(order_id: str) -> dict:
        """Refund an order.

        Args:
            order_id: the order.
            amount: how much (the function lost this parameter).
        """
        return {}

    error = _definition_error(refund)
    assert (error.tool_name, error.parameter) == ("refund", "amount")
    assert "docstring" in str(error)


def test_a_type_pydantic_cannot_describe_is_refused_naming_the_parameter():
    def hold(order_id: str, lock: threading.Lock) -> dict:
        return {}

    error = _definition_error(hold)
    assert (error.tool_name, error.parameter) == ("hold", "lock")
    assert "JSON schema" in str(error)
    assert isinstance(error.__cause__, PydanticUserError)


def test_a_definition_error_is_a_configuration_error_from_the_public_api():
    assert issubclass(steadyflow.ToolDefinitionError, steadyflow.ConfigurationError)
    assert steadyflow.errors.ToolDefinitionError is ToolDefinitionError
