"""The turns whose workflow histories the replay test replays (and the script records).

Each scenario is an agent (with a scripted model) and a message; the
histories under ``histories/`` were recorded from them by
``scripts/record_temporal_histories.py``. A change to the workflow that
would make a running invocation take another path on replay fails
``test_replay``: record new histories only for a change meant to be
incompatible (and then version the workflow for running invocations).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from steadyflow import FunctionTool, LlmAgent
from steadyflow.run_config import RunConfig
from steadyflow.testing import ScriptedLlm, call


def lookup(order: str) -> dict[str, str]:
    """Where an order is."""
    return {"order": order, "status": "shipped"}


def refund(order: str) -> dict[str, str]:
    """Refund an order."""
    return {"order": order, "refunded": "yes"}


@dataclass(frozen=True)
class Scenario:
    name: str
    agent: Callable[[], LlmAgent]
    message: str
    run_config: RunConfig = field(default_factory=RunConfig)


def _text() -> LlmAgent:
    return LlmAgent(name="helper", model=ScriptedLlm(["hello there"]))


def _parallel_tools() -> LlmAgent:
    model = ScriptedLlm(
        [[call("lookup", {"order": "A1"}), call("refund", {"order": "A1"})], "refunded A1"]
    )
    tools = [FunctionTool(lookup), FunctionTool(refund, idempotent=True)]
    return LlmAgent(name="helper", model=model, tools=tools)


def _budget() -> LlmAgent:
    model = ScriptedLlm([call("lookup", {"order": "A1"}), "never reached"])
    return LlmAgent(name="helper", model=model, tools=[FunctionTool(lookup)])


SCENARIOS = [
    Scenario("text_turn", _text, "hi"),
    Scenario("parallel_tools", _parallel_tools, "refund A1"),
    Scenario("budget_exceeded", _budget, "where is A1", RunConfig(max_llm_calls=1)),
]
