"""Connecting to Temporal and building a worker of the fleet.

Every worker of a fleet is started with the same app name, agent tree and
session store (PostgreSQL), so any of them can run any workflow task or
activity of any invocation. Payloads are steadyflow's pydantic models,
carried by the SDK's pydantic data converter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from ...agents.base_agent import BaseAgent
from ...plugins import BasePlugin, PluginManager
from ...run_config import RunConfig
from ...sessions.base import BaseSessionService
from ._activities import SteadyflowActivities
from ._settings import TemporalSettings
from ._tree import check_tree
from ._workflow import InvocationWorkflow

__all__ = ["connect", "create_worker", "workflow_runner"]


def workflow_runner() -> SandboxedWorkflowRunner:
    """Temporal's sandbox, with steadyflow's modules passed through.

    steadyflow's data modules (events, content, the payload models) are
    used by the workflow as they are outside it; the sandbox's re-import
    of them would trip over their default factories (``time.time``), which
    the workflow never calls: it gives every event its id and time from
    ``workflow.uuid4()`` and ``workflow.now()``. The replay test guards the
    workflow's determinism.
    """
    restrictions = SandboxRestrictions.default.with_passthrough_modules("steadyflow")
    return SandboxedWorkflowRunner(restrictions=restrictions)


async def connect(address: str, *, namespace: str = "default") -> Client:
    """A Temporal client for ``HOST:PORT`` that carries steadyflow's payloads."""
    return await Client.connect(
        address, namespace=namespace, data_converter=pydantic_data_converter
    )


def create_worker(
    client: Client,
    *,
    app_name: str,
    agent: BaseAgent,
    session_service: BaseSessionService,
    run_config: RunConfig | None = None,
    plugins: Sequence[BasePlugin] = (),
    settings: TemporalSettings | None = None,
    **worker_options: Any,
) -> Worker:
    """A worker that runs invocations of ``agent`` from ``settings.task_queue``.

    Args:
        client: from ``connect`` (its data converter carries the payloads).
        app_name: the app the sessions belong to.
        agent: the root agent (the same tree on every worker).
        session_service: the store (PostgreSQL for a fleet); the caller closes it.
        run_config: its ``retry_config`` is the retry policy of every model
            call this worker makes (budget and streaming come per invocation).
        plugins: runner-wide hooks, applied inside the activities.
        settings: task queue and heartbeat interval (a third of the timeout).
        **worker_options: passed to ``temporalio.worker.Worker``
            (``max_concurrent_activities``, ...).

    Run it with ``await worker.run()`` (or ``async with worker:``).

    Raises:
        ConfigurationError: an agent of the tree is not an ``LlmAgent``.
    """
    check_tree(agent)
    settings = settings or TemporalSettings()
    activities = SteadyflowActivities(
        app_name=app_name,
        agent=agent,
        session_service=session_service,
        run_config=run_config or RunConfig(),
        plugins=PluginManager(plugins),
        task_queue=settings.task_queue,
        heartbeat_interval=settings.heartbeat_timeout / 3,
        lease_seconds=settings.lease_seconds,
    )
    return Worker(
        client,
        task_queue=settings.task_queue,
        workflows=[InvocationWorkflow],
        workflow_runner=workflow_runner(),
        activities=activities.activities(),
        **worker_options,
    )
