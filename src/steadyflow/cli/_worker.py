"""``steadyflow worker AGENT --temporal-address HOST:PORT``: one worker of a Temporal fleet.

It loads the agent the way ``run`` does, opens the session store (the
fleet's shared PostgreSQL), connects to Temporal and runs invocations from
the task queue until SIGINT or SIGTERM, when it stops taking work and lets
the running activities finish (a SIGKILL loses them: Temporal gives them to
another worker after the heartbeat timeout). Every worker of a fleet runs
the same agent, app name and store. The turns run with the agent file's
``run_config`` (``--retry-attempts`` overriding its retry attempts).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.markup import escape

from .._redact import redact_url
from ..errors import ConfigurationError
from ._console import make_console
from ._errors import CliError
from ._loader import load_agent_file
from ._settings import RunFlags, run_config_for
from ._store import open_store

if TYPE_CHECKING:
    from ..durable.temporal import TemporalSettings

__all__ = ["WorkerOptions", "worker_command"]


@dataclass(frozen=True, kw_only=True)
class WorkerOptions:
    """The ``worker`` command's flags."""

    agent: str
    temporal_address: str
    task_queue: str
    namespace: str
    session_db: str
    app: str | None
    retry_attempts: int | None
    heartbeat_timeout: float
    max_concurrent_activities: int


def _settings(options: WorkerOptions) -> TemporalSettings:
    from ..durable.temporal import TemporalSettings

    try:
        return TemporalSettings(
            task_queue=options.task_queue,
            namespace=options.namespace,
            heartbeat_timeout=options.heartbeat_timeout,
        )
    except ConfigurationError as error:
        raise CliError(str(error)) from None


async def worker_command(options: WorkerOptions) -> None:
    """Run one worker until SIGINT/SIGTERM (see the module docstring)."""
    try:
        from ..durable import temporal
    except ImportError as error:
        raise CliError(f"{error}") from None
    if options.retry_attempts is not None and options.retry_attempts < 1:
        raise CliError(f"--retry-attempts must be >= 1, got {options.retry_attempts}")
    settings = _settings(options)
    root, file_config = load_agent_file(options.agent)
    run_config = run_config_for(file_config, RunFlags(retry_attempts=options.retry_attempts))
    app_name = options.app or root.name
    try:
        client = await temporal.connect(options.temporal_address, namespace=options.namespace)
    except Exception as error:  # the SDK's connection errors are RuntimeErrors
        raise CliError(f"cannot reach Temporal at {options.temporal_address}: {error}") from None
    console = make_console()
    async with open_store(options.session_db) as service:
        worker = temporal.create_worker(
            client,
            app_name=app_name,
            agent=root,
            session_service=service,
            run_config=run_config,
            settings=settings,
            max_concurrent_activities=options.max_concurrent_activities,
        )
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        console.print(
            f"worker for app {escape(app_name)!r} on task queue {escape(settings.task_queue)!r} "
            f"at {escape(options.temporal_address)}, sessions in "
            f"{escape(redact_url(options.session_db))}",
            soft_wrap=True,
        )
        running = asyncio.ensure_future(worker.run())
        waiting = asyncio.ensure_future(stop.wait())
        await asyncio.wait({running, waiting}, return_when=asyncio.FIRST_COMPLETED)
        if not running.done():
            await worker.shutdown()
        waiting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiting
        await running
