"""The Temporal mode takes trees of ``LlmAgent``: anything else is refused when it is set up."""

from __future__ import annotations

from typing import Any, cast

import pytest

from steadyflow import LlmAgent, SequentialAgent
from steadyflow.durable.temporal import TemporalRunner, create_worker
from steadyflow.errors import ConfigurationError
from steadyflow.sessions import InMemorySessionService
from steadyflow.testing import ScriptedLlm

NO_CLIENT = cast(Any, None)  # refused before the client is used


def a_pipeline() -> SequentialAgent:
    stages = [LlmAgent(name=n, model=ScriptedLlm(["ok"])) for n in ("find", "notify")]
    return SequentialAgent(name="pipeline", sub_agents=stages)


def test_a_runner_with_a_workflow_agent_is_refused_naming_it() -> None:
    with pytest.raises(ConfigurationError, match=r"'pipeline' is a SequentialAgent"):
        TemporalRunner(
            app_name="app", agent=a_pipeline(), session_service="memory://", client=NO_CLIENT
        )


def test_a_worker_for_a_tree_holding_one_deeper_down_is_refused() -> None:
    root = LlmAgent(name="front", model=ScriptedLlm(["ok"]), sub_agents=[a_pipeline()])
    with pytest.raises(ConfigurationError, match=r"'pipeline' is a SequentialAgent"):
        create_worker(
            NO_CLIENT, app_name="app", agent=root, session_service=InMemorySessionService()
        )


def test_a_tree_of_llm_agents_is_taken() -> None:
    root = LlmAgent(
        name="front",
        model=ScriptedLlm(["ok"]),
        sub_agents=[LlmAgent(name="billing", model=ScriptedLlm(["ok"]))],
    )
    runner = TemporalRunner(
        app_name="app", agent=root, session_service="memory://", client=NO_CLIENT
    )
    assert runner.agent is root
