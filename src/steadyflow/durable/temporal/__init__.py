"""The Temporal mode: invocations as durable workflows that any worker of a fleet can finish.

Install with ``pip install 'steadyflow[temporal]'``. An invocation is a
workflow (id = the invocation id) whose loop is the flow loop; model calls,
tool calls and session-store writes are activities, with the durability
rules of ``steadyflow.durable`` mapped onto Temporal's retry policy (see
``_workflow``'s docstring and docs/temporal.md). The session store stays
the source of truth.

Attributes:
    ACTIVITY_NAMES: the names of the activities a worker registers.
    DEFAULT_TASK_QUEUE: the task queue workers poll when none is set
        (``"steadyflow"``).
    WORKFLOW_NAME: the workflow type an invocation runs as
        (``"steadyflow.invocation"``).
"""

from __future__ import annotations

import importlib.util

if importlib.util.find_spec("temporalio") is None:  # pragma: no cover - depends on the install
    raise ImportError(
        "the Temporal mode needs the temporalio SDK: pip install 'steadyflow[temporal]'"
    )

from ._activities import ACTIVITY_NAMES, SteadyflowActivities
from ._runner import TemporalFleet, TemporalRunner
from ._settings import DEFAULT_TASK_QUEUE, TemporalSettings, TimeoutSettings
from ._worker import connect, create_worker
from ._workflow import WORKFLOW_NAME, InvocationWorkflow

__all__ = [
    "ACTIVITY_NAMES",
    "DEFAULT_TASK_QUEUE",
    "WORKFLOW_NAME",
    "InvocationWorkflow",
    "SteadyflowActivities",
    "TemporalFleet",
    "TemporalRunner",
    "TemporalSettings",
    "TimeoutSettings",
    "connect",
    "create_worker",
]
