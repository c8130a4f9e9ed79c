"""The activities: everything of an invocation that is not deterministic.

- ``steadyflow.begin``: store the user's message and the invocation's record
  (one commit, at most once), or find where a resumed invocation stands;
- ``steadyflow.model_call``: one logical model call, steadyflow's own retry
  loop inside (its errors fail the activity for good: Temporal never retries
  them; only a lost worker makes Temporal start it again);
- ``steadyflow.tool_call``: one tool call;
- ``steadyflow.append``: store one event, at most once by its id;
- ``steadyflow.finish``: close the record (status, calls used, trace).

The session store stays the source of truth: every activity reads the
session from it, so the CLI, ``steadyflow trace`` and the viewer see a
Temporal invocation as they see an in-process one.
"""

from __future__ import annotations

import time
from typing import Any

from temporalio import activity

from ..._confirmation import ToolConfirmation
from ..._routing import agent_to_run
from ...agents.base_agent import BaseAgent
from ...context import AgentNode, LlmCallBudget
from ...errors import NothingToResumeError, StaleInvocationError
from ...events import Event, EventActions
from ...flows._base_flow import transfer_target
from ...flows._functions import execute_one_call
from ...plugins import PluginManager
from ...run_config import RunConfig
from ...sessions.base import BaseSessionService, Session
from ...sessions.invocations import InvocationRecord, InvocationStatus
from ...trace_record._schema import InvocationTrace, StepTrace
from ...types import FunctionCall, Part
from .._confirm import ANSWERED, WAITING, mark_waiting
from .._keeper import RecordKeeper
from .._records import start_record
from .._renewer import LeaseRenewer
from .._resume import resume_point
from ._context import (
    HeartbeatBudget,
    activity_error,
    build_context,
    heartbeating,
    load_session,
    run_config_for,
)
from ._model_step import model_step
from ._payloads import (
    AppendInput,
    BeginInput,
    BeginResult,
    CallSpec,
    FinishInput,
    StepInput,
    StepResult,
    ToolInput,
    ToolResult,
)
from ._records import claim_for_temporal, close_record, temporal_owner, with_step

__all__ = ["ACTIVITY_NAMES", "SteadyflowActivities"]

ACTIVITY_NAMES = (
    "steadyflow.begin",
    "steadyflow.model_call",
    "steadyflow.tool_call",
    "steadyflow.append",
    "steadyflow.finish",
)
"""The activity types a worker registers, in the order an invocation uses them."""


def _pending(keeper: RecordKeeper, call: FunctionCall, idempotent: bool) -> CallSpec:
    """A resumed call, with the outcome the journal already holds for it (if any)."""
    known = keeper.known(call, idempotent=idempotent)
    if known is None:
        return CallSpec(call=call, idempotent=idempotent)
    part = Part.from_function_response(call.name, known.response, id=call.id)
    actions = EventActions(state_delta=known.state_delta) if known.state_delta else None
    return CallSpec(call=call, idempotent=idempotent, known=ToolResult(part=part, actions=actions))


class SteadyflowActivities:
    """The activities of one app's agent tree against one session store.

    Args:
        app_name: the app whose sessions these invocations belong to.
        agent: the root agent (every worker of the fleet runs the same tree).
        session_service: the store (PostgreSQL for a fleet).
        run_config: the worker's retry policy (``retry_config``); budget and
            streaming come with each invocation.
        plugins: runner-wide hooks applied inside the activities.
        task_queue: the queue this fleet serves (recorded as the owner).
        heartbeat_interval: seconds between heartbeats of a running activity.
        lease_seconds: how far each write pushes the record's lease.
    """

    def __init__(
        self,
        *,
        app_name: str,
        agent: BaseAgent,
        session_service: BaseSessionService,
        run_config: RunConfig,
        plugins: PluginManager,
        task_queue: str,
        heartbeat_interval: float,
        lease_seconds: float,
    ) -> None:
        self.app_name, self.agent, self.service = app_name, agent, session_service
        self.run_config, self.plugins, self.task_queue = run_config, plugins, task_queue
        self.interval, self.lease_seconds = heartbeat_interval, lease_seconds

    def activities(self) -> list[Any]:
        """The activity callables, for ``temporalio.worker.Worker(activities=...)``."""
        return [self.begin, self.model_call, self.tool_call, self.append, self.finish]

    def _find(self, name: str) -> AgentNode:
        found = self.agent.find_agent(name)
        if found is None:
            raise NothingToResumeError(f"agent {name!r} is not in the tree of {self.agent.name!r}")
        return found

    @activity.defn(name="steadyflow.begin")
    async def begin(self, given: BeginInput) -> BeginResult:
        """Store the user's event with a new record, or read where the invocation stands."""
        try:
            return await self._begin(given)
        except Exception as error:
            raise activity_error(error) from error

    async def _begin(self, given: BeginInput) -> BeginResult:
        session = await load_session(self.service, given.app_name, given.user_id, given.session_id)
        record = await self.service.get_invocation(
            app_name=given.app_name,
            user_id=given.user_id,
            session_id=given.session_id,
            invocation_id=given.invocation_id,
        )
        if record is None:
            if given.new_message is None:
                raise NothingToResumeError(f"no invocation {given.invocation_id!r} to resume")
            return await self._start(session, given)
        if record.owner != temporal_owner(self.task_queue) or given.new_message is None:
            record = await claim_for_temporal(
                self.service, session, record, self.task_queue, self.lease_seconds
            )
        point = resume_point(session.events, record.id)
        tools = self._tools_of(point.agent_name or record.agent)
        renewer = LeaseRenewer(self.lease_seconds / 3)  # never started: nothing renews here
        keeper = RecordKeeper(self.service, record, LlmCallBudget(0), self.lease_seconds, renewer)
        keeper.mark_resumed()  # calls journaled as started were cut short by the crash
        pending = [_pending(keeper, c, tools.get(c.name, False)) for c in point.pending_calls]
        in_flight = 1 if point.model_next and record.resume_count > 0 else 0
        own = [e for e in session.events if e.invocation_id == record.id]
        return BeginResult(
            agent=point.agent_name or record.agent,
            llm_calls=record.llm_calls + in_flight,
            pending_calls=pending,
            answered=point.answered,
            events=own,
        )

    async def _start(self, session: Session, given: BeginInput) -> BeginResult:
        user_event = Event(
            id=given.user_event_id,
            invocation_id=given.invocation_id,
            author="user",
            content=given.new_message,
            timestamp=given.timestamp,
        )
        agent = agent_to_run(self.agent, session, user_event)
        record = start_record(
            invocation_id=given.invocation_id,
            app_name=given.app_name,
            user_id=given.user_id,
            session_id=given.session_id,
            agent=agent.name,
            max_llm_calls=given.max_llm_calls,
            now=time.time(),
            lease_seconds=self.lease_seconds,
        )
        record.owner = temporal_owner(self.task_queue)
        stored = await self.service.append_event_and_record(session, user_event, record)
        return BeginResult(agent=agent.name, events=[stored])

    def _tools_of(self, agent_name: str) -> dict[str, bool]:
        """Per tool name of ``agent_name``'s own tools: whether it is idempotent."""
        agent = self.agent.find_agent(agent_name)
        if agent is None:
            return {}
        flow = getattr(agent, "flow", None)
        if flow is None:
            return {}
        return {name: tool.is_idempotent for name, tool in flow.tools_for(agent).items()}

    @activity.defn(name="steadyflow.model_call")
    async def model_call(self, given: StepInput) -> StepResult:
        """One logical model call under steadyflow's retry loop (see the module docstring)."""
        count = given.llm_calls
        info = activity.info()
        if info.attempt > 1:  # a lost worker's attempts count: its last report, or one
            reported = info.heartbeat_details
            seen = int(reported[0]) if reported else 0
            count = max(seen, given.llm_calls + 1)
        budget = HeartbeatBudget(given.max_llm_calls)
        budget.count = count
        try:
            async with heartbeating(self.interval, lambda: budget.count):
                return await self._model_call(given, budget)
        except Exception as error:
            raise activity_error(error) from error

    async def _model_call(self, given: StepInput, budget: LlmCallBudget) -> StepResult:
        session = await load_session(self.service, given.app_name, given.user_id, given.session_id)
        agent = self._find(given.agent)
        if given.transfer_from is not None:
            transfer_target(self._find(given.transfer_from), given.agent)
        ctx = build_context(
            root=self.agent,
            agent=agent,
            session=session,
            service=self.service,
            invocation_id=given.invocation_id,
            run_config=run_config_for(
                self.run_config, given.max_llm_calls, given.stream, given.retry
            ),
            budget=budget,
            plugins=self.plugins,
            started_at=given.started_at,
        )
        return await model_step(agent, ctx, given.step)

    @activity.defn(name="steadyflow.tool_call")
    async def tool_call(self, given: ToolInput) -> ToolResult:
        """One tool call; its errors are the model's to read, as in-process."""
        try:
            async with heartbeating(self.interval, lambda: None):
                return await self._tool_call(given)
        except Exception as error:
            raise activity_error(error) from error

    async def _tool_call(self, given: ToolInput) -> ToolResult:
        session = await load_session(self.service, given.app_name, given.user_id, given.session_id)
        agent: Any = self._find(given.agent)
        ctx = build_context(
            root=self.agent,
            agent=agent,
            session=session,
            service=self.service,
            invocation_id=given.invocation_id,
            run_config=self.run_config,
            budget=LlmCallBudget(0),
            plugins=self.plugins,
            started_at=given.started_at,
        )
        tools = dict(agent.flow.tools_for(agent))
        if agent.toolsets:  # the toolsets' tools, as the step's request saw them
            await agent.flow.preprocess(agent, ctx)
            tools.update(ctx.toolset_tools.get(agent.name, {}))
        step = StepTrace(0, agent.name, ctx.trace.now())
        answer = given.confirmation
        confirmation = None if answer is None else ToolConfirmation(**answer)
        part, actions, request = await execute_one_call(
            agent, ctx, given.call, tools, step, confirmation
        )
        traces = InvocationTrace(steps=[step]).to_dict()["steps"][0].get("tools", [])
        trace = traces[0] if traces else None
        return ToolResult(part=part, actions=actions, trace=trace, request=request)

    @activity.defn(name="steadyflow.append")
    async def append(self, given: AppendInput) -> Event:
        """Store ``given.event`` with the record, unless an event of that id is stored already."""
        try:
            return await self._append(given)
        except Exception as error:
            raise activity_error(error) from error

    async def _append(self, given: AppendInput) -> Event:
        session = await load_session(self.service, given.app_name, given.user_id, given.session_id)
        for stored in session.events:
            if stored.id == given.event.id:
                return stored  # a lost worker stored it before its result was recorded
        record = await self._own_record(given.app_name, given.user_id, given.session_id, given)
        record.llm_calls = given.llm_calls
        record.lease_expires_at = time.time() + self.lease_seconds
        with_step(record, given.step_trace, given.tool_traces)
        if given.waiting and mark_waiting(record.journal, given.event):
            record.status = InvocationStatus.WAITING
        if given.answered:
            record.status = InvocationStatus.RUNNING
            for entry in record.journal.values():
                if entry.get("state") == WAITING:
                    entry["state"] = ANSWERED
        return await self.service.append_event_and_record(session, given.event, record)

    async def _own_record(
        self, app_name: str, user_id: str, session_id: str, given: AppendInput | FinishInput
    ) -> InvocationRecord:
        record = await self.service.get_invocation(
            app_name=app_name,
            user_id=user_id,
            session_id=session_id,
            invocation_id=given.invocation_id,
        )
        if record is None or record.owner != temporal_owner(self.task_queue):
            revision = 0 if record is None else record.revision
            raise StaleInvocationError(given.invocation_id, revision)
        return record

    @activity.defn(name="steadyflow.finish")
    async def finish(self, given: FinishInput) -> None:
        """Close the record: status, end time, calls used, error, the trace's totals."""
        try:
            record = await self._own_record(given.app_name, given.user_id, given.session_id, given)
            close_record(record, given, now=time.time())
            await self.service.update_invocation(record)
        except Exception as error:
            raise activity_error(error) from error
