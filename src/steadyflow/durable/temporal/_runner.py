"""``TemporalRunner``: a ``Runner`` whose invocations run as workflows on a fleet.

``run_async`` starts a workflow (id = the invocation id) on the task queue
and yields the invocation's events once they are stored; ``resume_async``
follows the invocation's workflow when it has one, and otherwise (an
invocation an in-process runner started and lost) starts one that continues
it from what the store holds. Sessions, the session store and the CLI are
the ``Runner``'s: only where turns run changes.

What a client sees: the complete events, as they are stored, in order, when
the workflow has ended or paused for a person (its ``settled`` update);
partial (streamed) events are not relayed in Temporal mode (the model-call
activity consumes them). A stored event is never yielded twice. A message
of confirmation answers is checked against the stored requests and sent to
the waiting workflow as its ``answer`` signal.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

from temporalio.client import (
    Client,
    WorkflowFailureError,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from ..._confirmation import is_confirmation_event, parse_answers
from ...agents.base_agent import BaseAgent
from ...context import new_invocation_id
from ...errors import (
    ConfigurationError,
    InvocationFailedError,
    LlmCallsLimitExceededError,
    NothingToResumeError,
)
from ...events import Event
from ...plugins import BasePlugin
from ...run_config import RunConfig, StreamingMode
from ...runner import Runner
from ...sessions.base import BaseSessionService
from ...types import Content
from .._confirm import check_answers
from ._payloads import AnswerSignal, InvocationInput, InvocationResult, Settled
from ._retry_wire import retry_to_wire
from ._settings import TemporalSettings
from ._tree import check_tree
from ._workflow import WORKFLOW_NAME, details_of

__all__ = ["TemporalFleet", "TemporalRunner"]


def _checked(run_config: RunConfig | None) -> RunConfig:
    run_config = run_config or RunConfig()
    if run_config.streaming_mode is StreamingMode.BIDI:
        raise ConfigurationError("StreamingMode.BIDI (live) does not run on Temporal")
    retry_to_wire(run_config.retry_config)  # refuses the worker's shared parts
    return run_config


class TemporalRunner(Runner):
    """Runs invocations as Temporal workflows; see the module docstring.

    Args:
        app_name: as ``Runner``.
        agent: as ``Runner`` (the workers run the same agent tree).
        session_service: as ``Runner`` (the workers use the same store).
        plugins: as ``Runner``.
        client: a Temporal client from ``steadyflow.durable.temporal.connect``.
        settings: task queue, namespace and the activities' timeouts.

    Raises:
        ConfigurationError: an agent of the tree is not an ``LlmAgent``
            (workflow and custom agents run in-process, with ``Runner``).
    """

    def __init__(
        self,
        *,
        app_name: str,
        agent: BaseAgent,
        session_service: BaseSessionService | str,
        client: Client,
        settings: TemporalSettings | None = None,
        plugins: Sequence[BasePlugin] = (),
    ) -> None:
        check_tree(agent)
        super().__init__(
            app_name=app_name, agent=agent, session_service=session_service, plugins=plugins
        )
        self.client = client
        self.settings = settings or TemporalSettings()

    def _input(
        self, user_id: str, session_id: str, invocation_id: str, run_config: RunConfig, **more: Any
    ) -> InvocationInput:
        return InvocationInput(
            app_name=self.app_name,
            user_id=user_id,
            session_id=session_id,
            invocation_id=invocation_id,
            max_llm_calls=run_config.max_llm_calls,
            stream=run_config.streaming_mode is StreamingMode.SSE,
            timeouts=self.settings.timeouts(),
            retry=retry_to_wire(run_config.retry_config),
            **more,
        )

    async def start(
        self,
        *,
        user_id: str,
        session_id: str,
        new_message: Content | str,
        run_config: RunConfig | None = None,
    ) -> WorkflowHandle[Any, InvocationResult]:
        """Start an invocation's workflow and return its handle without waiting."""
        run_config = _checked(run_config)
        message = Content.from_text(new_message) if isinstance(new_message, str) else new_message
        if not message.parts:
            raise ValueError("new_message has no parts")
        await self._load(user_id, session_id)
        given = self._input(
            user_id, session_id, new_invocation_id(), run_config, new_message=message
        )
        return await self._start_workflow(given)

    async def _start_workflow(
        self, given: InvocationInput
    ) -> WorkflowHandle[Any, InvocationResult]:
        return await self.client.start_workflow(
            WORKFLOW_NAME,
            given,
            id=given.invocation_id,
            task_queue=self.settings.task_queue,
            result_type=InvocationResult,
        )

    def run_async(
        self,
        *,
        user_id: str,
        session_id: str,
        new_message: Content | str,
        run_config: RunConfig | None = None,
    ) -> AsyncIterator[Event]:
        """Run one invocation on the fleet, yielding its events (see the module docstring)."""
        return self._run(user_id, session_id, new_message, run_config)

    async def _run(
        self,
        user_id: str,
        session_id: str,
        new_message: Content | str,
        run_config: RunConfig | None,
    ) -> AsyncIterator[Event]:
        message = Content.from_text(new_message) if isinstance(new_message, str) else new_message
        seen: set[str] = set()
        pauses = 0
        if parse_answers(message):  # a person's answer: the waiting workflow continues
            handle, seen, pauses = await self._answer(user_id, session_id, message)
        else:
            handle = await self.start(
                user_id=user_id, session_id=session_id, new_message=message, run_config=run_config
            )
        async for event in _follow(handle, seen, pauses):
            if event.author != "user":
                yield event

    async def _answer(
        self, user_id: str, session_id: str, message: Content
    ) -> tuple[WorkflowHandle[Any, InvocationResult], set[str], int]:
        """Signal the answers to the workflow waiting for them; the events stored before.

        Raises:
            ConfirmationError: an answer that fits no waiting confirmation.
        """
        session = await self._load(user_id, session_id)
        records = await self.session_service.list_invocations(
            app_name=self.app_name, user_id=user_id, session_id=session_id
        )
        record = check_answers(session, records, parse_answers(message) or {})
        handle = self.client.get_workflow_handle(record.id, result_type=InvocationResult)
        await handle.signal("answer", AnswerSignal(message=message))
        return handle, {e.id for e in session.events}, _pauses(session.events, record.id)

    def resume_async(
        self,
        *,
        user_id: str,
        session_id: str,
        invocation_id: str | None = None,
        run_config: RunConfig | None = None,
    ) -> AsyncIterator[Event]:
        """Continue the session's unfinished invocation on the fleet, yielding its remaining events.

        Raises:
            NothingToResumeError: none unfinished (or its workflow has ended).
        """
        return self._resume_on_fleet(user_id, session_id, invocation_id, run_config)

    async def _resume_on_fleet(
        self,
        user_id: str,
        session_id: str,
        invocation_id: str | None,
        run_config: RunConfig | None,
    ) -> AsyncIterator[Event]:
        session = await self._load(user_id, session_id)
        records = await self.session_service.list_invocations(
            app_name=self.app_name, user_id=user_id, session_id=session_id
        )
        unfinished = [r for r in records if not r.status.is_final]
        chosen = [r for r in records if r.id == invocation_id] if invocation_id else unfinished
        if not chosen or chosen[-1].status.is_final:
            raise NothingToResumeError(f"session {session_id!r} has no unfinished invocation")
        record = chosen[-1]
        stored = {e.id for e in session.events}
        handle = self.client.get_workflow_handle(record.id, result_type=InvocationResult)
        try:
            await handle.describe()
        except RPCError as error:
            if error.status is not RPCStatusCode.NOT_FOUND:
                raise
            config = _checked(run_config or RunConfig(max_llm_calls=record.max_llm_calls))
            handle = await self._start_workflow(self._input(user_id, session_id, record.id, config))
        async for event in _follow(handle, stored):
            yield event


async def _follow(
    handle: WorkflowHandle[Any, InvocationResult], seen: set[str], pauses_seen: int = 0
) -> AsyncIterator[Event]:
    """The workflow's stored events not in ``seen``, until it ends or pauses for a person.

    Its failure is raised as steadyflow's error.
    """
    events: list[Event] = []
    waiting = False
    try:
        # The SDK's overloads of execute_update carry an unknown parameter type.
        update: Any = handle.execute_update  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        settled = cast(Settled, await update("settled", pauses_seen, result_type=Settled))
        events, waiting = settled.events, settled.waiting
    except (WorkflowUpdateFailedError, RPCError):
        pass  # it had ended: its result says how
    try:
        if not waiting:
            events = (await handle.result()).events
    except WorkflowFailureError as failure:
        raise _error_of(handle.id, failure) from None
    for event in events:
        if event.id not in seen:
            seen.add(event.id)
            yield event


def _pauses(events: list[Event], invocation_id: str) -> int:
    """How many pause events invocation ``invocation_id`` has stored."""
    own = [e for e in events if e.invocation_id == invocation_id and e.author != "user"]
    return sum(1 for e in own if is_confirmation_event(e))


def _error_of(invocation_id: str, failure: WorkflowFailureError) -> Exception:
    cause = failure.cause
    if not isinstance(cause, ApplicationError):
        return InvocationFailedError(invocation_id, type(cause).__name__, str(cause))
    limit = details_of(cause).get("limit")
    if cause.type == "LlmCallsLimitExceededError" and isinstance(limit, int):
        return LlmCallsLimitExceededError(limit)
    return InvocationFailedError(invocation_id, cause.type or "ApplicationError", cause.message)


@dataclass(frozen=True)
class TemporalFleet:
    """Where a server's turns run instead of in-process: a Temporal client and the settings.

    ``steadyflow.server.create_app(..., temporal=TemporalFleet(client, settings))``
    (``steadyflow serve --temporal-address``) starts each turn as a workflow
    on ``settings.task_queue``; the fleet's workers run it.
    """

    client: Client
    settings: TemporalSettings

    def runner(
        self, *, app_name: str, agent: BaseAgent, session_service: BaseSessionService
    ) -> TemporalRunner:
        """A ``TemporalRunner`` for this fleet."""
        return TemporalRunner(
            app_name=app_name,
            agent=agent,
            session_service=session_service,
            client=self.client,
            settings=self.settings,
        )
