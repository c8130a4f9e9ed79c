"""Workflow determinism: recorded histories replay against today's workflow code.

A change to ``InvocationWorkflow`` that would send a running invocation down
another path (another activity, another order, other ids) makes Temporal's
``Replayer`` raise a non-determinism error here, in CI, before it reaches a
fleet. The histories were recorded by ``scripts/record_temporal_histories.py``
from ``scenarios.py``. No server is needed.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from temporalio import workflow
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from steadyflow.durable.temporal import InvocationWorkflow
from steadyflow.durable.temporal._payloads import InvocationInput, InvocationResult
from steadyflow.durable.temporal._worker import workflow_runner
from tests.durable.temporal.scenarios import SCENARIOS

HISTORIES = Path(__file__).parent / "histories"


def history(name: str) -> WorkflowHistory:
    return WorkflowHistory.from_json(name, (HISTORIES / f"{name}.json").read_text())


def replayer() -> Replayer:
    return Replayer(
        workflows=[InvocationWorkflow],
        data_converter=pydantic_data_converter,
        workflow_runner=workflow_runner(),
    )


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
async def test_a_recorded_history_replays_without_nondeterminism(scenario) -> None:
    result = await replayer().replay_workflow(history(scenario.name), raise_on_replay_failure=False)
    assert result.replay_failure is None


@workflow.defn(name="steadyflow.invocation")
class ChangedWorkflow(InvocationWorkflow):
    """The workflow with one activity more before its first: what a careless edit does."""

    @workflow.run
    async def run(self, given: InvocationInput) -> InvocationResult:
        timeout = timedelta(seconds=1)
        await workflow.execute_activity("steadyflow.extra", given, start_to_close_timeout=timeout)
        return await super().run(given)


async def test_a_workflow_change_that_breaks_running_invocations_fails_the_replay() -> None:
    changed = Replayer(
        workflows=[ChangedWorkflow],
        data_converter=pydantic_data_converter,
        workflow_runner=workflow_runner(),
    )
    result = await changed.replay_workflow(history("parallel_tools"), raise_on_replay_failure=False)
    assert isinstance(result.replay_failure, workflow.NondeterminismError)
