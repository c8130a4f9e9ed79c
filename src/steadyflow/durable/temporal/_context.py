"""Rebuilding an invocation's context inside an activity, from the store alone.

An activity may run on any worker, so it holds nothing from the activities
before it: it loads the session (the source of truth), finds the agent by
name in the worker's tree, and builds an ``InvocationContext`` whose call
budget starts at the count the workflow carries. The budget reports each
attempt through an activity heartbeat the moment it is counted, so attempts
made by a worker that is then lost still count after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from ...agents.base_agent import BaseAgent
from ...context import AgentNode, InvocationContext, LlmCallBudget
from ...errors import SessionNotFoundError
from ...plugins import PluginManager
from ...run_config import RunConfig, StreamingMode
from ...sessions.base import BaseSessionService, Session
from ...trace_record._recorder import InvocationRecorder
from ._retry_wire import retry_from_wire

__all__ = ["HeartbeatBudget", "activity_error", "build_context", "heartbeating", "load_session"]

logger = logging.getLogger("steadyflow.temporal")


class HeartbeatBudget(LlmCallBudget):
    """A call budget that heartbeats its count after every counted attempt."""

    __slots__ = ()

    def increment(self) -> None:
        """Count one attempt (see ``LlmCallBudget``), then report the new count."""
        super().increment()
        activity.heartbeat(self.count)


def activity_error(error: BaseException) -> ApplicationError:
    """``error`` as a failure Temporal never retries (steadyflow's own layer retried already)."""
    limit = getattr(error, "limit", None)
    details: dict[str, Any] = {"limit": limit} if isinstance(limit, int) else {}
    return ApplicationError(
        str(error),
        details,
        type=type(error).__name__,
        non_retryable=True,
    )


async def load_session(
    service: BaseSessionService, app_name: str, user_id: str, session_id: str
) -> Session:
    """The stored session; ``SessionNotFoundError`` when there is none."""
    session = await service.get_session(app_name=app_name, user_id=user_id, session_id=session_id)
    if session is None:
        raise SessionNotFoundError(app_name, user_id, session_id)
    return session


def build_context(
    *,
    root: BaseAgent,
    agent: AgentNode,
    session: Session,
    service: BaseSessionService,
    invocation_id: str,
    run_config: RunConfig,
    budget: LlmCallBudget,
    plugins: PluginManager,
    started_at: float,
) -> InvocationContext:
    """An invocation context for ``agent``; its trace's times count from ``started_at``."""
    own = [e for e in session.events if e.invocation_id == invocation_id and e.author == "user"]
    ctx = InvocationContext(
        invocation_id=invocation_id,
        agent=root,
        session=session,
        session_service=service,
        run_config=run_config,
        user_content=own[0].content if own else None,
        budget=budget,
        plugins=plugins,
        trace=InvocationRecorder(time.time, lambda: started_at, origin=started_at),
    )
    return ctx.for_agent(agent)


def run_config_for(
    base: RunConfig, max_llm_calls: int, stream: bool, retry: dict[str, Any] | None
) -> RunConfig:
    """The invocation's run config: its budget, streaming and retry settings over the worker's."""
    mode = StreamingMode.SSE if stream else StreamingMode.NONE
    retry_config = retry_from_wire(base.retry_config, retry)
    return RunConfig(max_llm_calls=max_llm_calls, streaming_mode=mode, retry_config=retry_config)


@contextlib.asynccontextmanager
async def heartbeating(interval: float, details: Callable[[], Any]) -> AsyncGenerator[None]:
    """Heartbeat ``details()`` every ``interval`` seconds while the block runs."""

    async def beat() -> None:
        while True:
            activity.heartbeat(details())
            await asyncio.sleep(interval)

    task = asyncio.ensure_future(beat())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
