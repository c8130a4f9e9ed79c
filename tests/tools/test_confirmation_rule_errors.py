"""A confirmation rule that raises: the call's error result, read by the model and traced."""

from __future__ import annotations

from typing import Any

from steadyflow import FunctionTool, InMemorySessionService, LlmAgent, Runner, ToolContext
from steadyflow.testing import ScriptedLlm, call
from steadyflow.tools import confirmation_requests


def transfer(amount: int) -> dict:
    """Move money.

    Args:
        amount: how much.
    """
    runs.append(amount)
    return {"moved": amount}


runs: list[int] = []


def broken_rule(args: dict[str, Any], tool_context: ToolContext) -> bool:
    return args["amount"] > "100"  # a bug: compares an int with a str


async def test_a_rule_that_raises_becomes_the_calls_error_result_and_is_traced():
    runs.clear()
    model = ScriptedLlm([call("transfer", {"amount": 5}), "The transfer could not be checked."])
    runner = Runner(
        app_name="app",
        agent=LlmAgent(
            name="a", model=model, tools=[FunctionTool(transfer, require_confirmation=broken_rule)]
        ),
        session_service=InMemorySessionService(),
    )
    session = await runner.create_session(user_id="u")

    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="go")
    ]

    assert runs == []  # the tool did not run
    assert not any(confirmation_requests(e) for e in events)
    assert events[-1].text == "The transfer could not be checked."
    (response,) = [
        r for c in model.requests[1].contents for p in c.parts if (r := p.function_response)
    ]
    assert "did not run: its confirmation rule failed: TypeError" in response.response["error"]
    (record,) = await runner.session_service.list_invocations(
        app_name="app", user_id="u", session_id=session.id
    )
    assert record.trace is not None
    (tool_call,) = record.trace.steps[0].tools
    assert (tool_call.status, tool_call.error_type) == ("error", "TypeError")
