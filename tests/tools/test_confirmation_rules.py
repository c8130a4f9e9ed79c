"""Which calls wait for a person: the tool's rule, however and whenever it is given."""

from __future__ import annotations

from typing import Any

import pytest

from steadyflow import FunctionTool, InMemorySessionService, LlmAgent, Runner, ToolContext
from steadyflow.errors import ConfigurationError
from steadyflow.testing import ScriptedLlm, call
from steadyflow.tools import confirmation_requests


def transfer(amount: int) -> dict:
    """Move money.

    Args:
        amount: how much.
    """
    return {"moved": amount}


async def requests_after_one_call(tool: FunctionTool) -> tuple[int, list[str]]:
    """How many confirmation requests one call of ``tool`` made, and what the model was sent."""
    model = ScriptedLlm([call("transfer", {"amount": 5}), "done"])
    runner = Runner(
        app_name="app",
        agent=LlmAgent(name="a", model=model, tools=[tool]),
        session_service=InMemorySessionService(),
    )
    session = await runner.create_session(user_id="u")
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="go")
    ]
    requests = [r for e in events for r in confirmation_requests(e)]
    return len(requests), [e.text for e in events if e.text]


async def test_a_tool_that_never_asks_runs_at_once():
    assert await requests_after_one_call(FunctionTool(transfer)) == (0, ["done"])


async def test_a_rule_set_after_the_tool_was_made_is_asked():
    tool = FunctionTool(transfer)
    tool.require_confirmation = True

    assert await requests_after_one_call(tool) == (1, [])


async def test_a_subclass_that_answers_itself_is_asked():
    class Careful(FunctionTool):
        async def needs_confirmation(
            self, *, args: dict[str, Any], tool_context: ToolContext
        ) -> bool:
            return args["amount"] > 1

    assert await requests_after_one_call(Careful(transfer)) == (1, [])


def test_a_rule_that_is_no_bool_nor_callable_is_refused_when_set():
    tool = FunctionTool(transfer)

    with pytest.raises(ConfigurationError, match="require_confirmation must be a bool"):
        tool.require_confirmation = "always"  # type: ignore[assignment]
    assert tool.require_confirmation is False
