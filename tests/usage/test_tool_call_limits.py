"""Tool-call limits: checked before a call runs; a refused call does nothing, the model is told."""

from __future__ import annotations

import pytest

from steadyflow import FunctionTool, LlmAgent, RunConfig
from steadyflow.errors import ConfigurationError
from steadyflow.sessions import InMemorySessionService
from steadyflow.testing import ScriptedLlm
from steadyflow.testing.scripted import call
from steadyflow.tools import confirmation_answer, confirmation_requests
from steadyflow.usage import UsageLimits

from .helpers import records, start, turn


class Counter:
    """Tools that count how often they really ran."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    def lookup(self, order: str) -> dict:
        """Look up an order."""
        self.ran.append(f"lookup {order}")
        return {"status": "shipped"}

    def refund(self, order: str) -> dict:
        """Refund an order."""
        self.ran.append(f"refund {order}")
        return {"refunded": True}


def responses(request) -> list[dict]:
    """The function responses a request carried, in order."""
    return [
        part.function_response.response
        for content in request.contents
        for part in content.parts
        if part.function_response is not None
    ]


async def test_a_call_per_tool_over_its_limit_does_not_run_and_the_model_reads_why() -> None:
    tools = Counter()
    model = ScriptedLlm(
        [
            [call("lookup", {"order": "1"}), call("lookup", {"order": "2"})],
            [call("lookup", {"order": "3"}), call("refund", {"order": "1"})],
            "done",
        ]
    )
    agent = LlmAgent(name="a", model=model, tools=[tools.lookup, tools.refund])
    runner, sid = await start(agent)
    limits = UsageLimits(max_calls_per_tool={"lookup": 2})
    events = await turn(runner, sid, RunConfig(usage_limits=limits))
    assert events[-1].text == "done"
    assert tools.ran == ["lookup 1", "lookup 2", "refund 1"]
    refused, refunded = responses(model.requests[2])[2:]
    assert refused == {
        "error": "tool call refused: max_calls_per_tool['lookup'] (2) reached for this "
        "invocation; do not call 'lookup' again"
    }
    assert refunded == {"refunded": True}
    (record,) = await records(runner, sid)
    assert record.usage["tool_calls"] == 3
    assert record.usage["tool_calls_by_name"] == {"lookup": 2, "refund": 1}
    step = record.trace.steps[1]
    assert [(t.name, t.error_type) for t in step.tools] == [
        ("lookup", "ToolCallLimit"),
        ("refund", None),
    ]


async def test_a_total_limit_runs_the_first_calls_of_a_parallel_batch_only() -> None:
    tools = Counter()
    batch = [call("lookup", {"order": str(n)}) for n in range(1, 5)]
    model = ScriptedLlm([batch, "done"])
    runner, sid = await start(LlmAgent(name="a", model=model, tools=[tools.lookup]))
    await turn(runner, sid, RunConfig(usage_limits=UsageLimits(max_tool_calls=3)))
    assert sorted(tools.ran) == ["lookup 1", "lookup 2", "lookup 3"]
    answers = responses(model.requests[1])
    assert answers[:3] == [{"status": "shipped"}] * 3
    assert answers[3]["error"].startswith("tool call refused: max_tool_calls (3) reached")


async def test_the_count_holds_across_turns_of_one_invocation_only() -> None:
    tools = Counter()
    steps = [call("lookup", {"order": "1"}), "one", call("lookup", {"order": "2"}), "two"]
    model = ScriptedLlm(steps)
    service = InMemorySessionService()
    runner, sid = await start(LlmAgent(name="a", model=model, tools=[tools.lookup]), service)
    config = RunConfig(usage_limits=UsageLimits(max_tool_calls=1))
    await turn(runner, sid, config)
    await turn(runner, sid, config)  # a new invocation: its own count
    assert tools.ran == ["lookup 1", "lookup 2"]


def test_bad_tool_call_limits_are_refused_by_name() -> None:
    with pytest.raises(ConfigurationError, match="max_tool_calls must be an int >= 0"):
        UsageLimits(max_tool_calls=-1)
    with pytest.raises(ConfigurationError, match=r"max_calls_per_tool\['lookup'\] must be"):
        UsageLimits(max_calls_per_tool={"lookup": "2"})  # type: ignore[dict-item]
    with pytest.raises(ConfigurationError, match="max_calls_per_tool must map tool names"):
        UsageLimits(max_calls_per_tool=["lookup"])  # type: ignore[arg-type]
    limits = UsageLimits(max_tool_calls=2, max_calls_per_tool={"lookup": 1})
    assert UsageLimits.from_dict(limits.to_dict()) == limits


async def test_a_call_waiting_for_confirmation_counts_once() -> None:
    ran: list[int] = []

    def transfer(amount: int) -> dict:
        """Move money."""
        ran.append(amount)
        return {"moved": amount}

    model = ScriptedLlm([call("transfer", {"amount": 5}), "Sent."])
    tool = FunctionTool(transfer, require_confirmation=True)
    runner, sid = await start(LlmAgent(name="a", model=model, tools=[tool]))
    config = RunConfig(usage_limits=UsageLimits(max_tool_calls=1))
    (request,) = [r for e in await turn(runner, sid, config) for r in confirmation_requests(e)]
    answer = confirmation_answer(request.id, confirmed=True)
    events = [e async for e in runner.run_async(user_id="u", session_id=sid, new_message=answer)]
    assert ran == [5]  # counted when it was asked, not again when it ran
    assert events[-1].text == "Sent."
    (record,) = await records(runner, sid)
    assert record.usage["tool_calls"] == 1
