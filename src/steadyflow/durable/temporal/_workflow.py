"""``InvocationWorkflow``: one invocation as a Temporal workflow, the flow loop inside.

The loop is the in-process one (``BaseLlmFlow.run_async``), over data only:
each step is a model-call activity, then one tool activity per call of its
event (run side by side), then the function-response event; the turn ends
on a final response, an action that ends the invocation, an escalation, or
a step that gave nothing, and a transfer continues with the target agent.
Everything that is not deterministic (the store, the model, tools, ids of
the model's events) happens in activities; the ids and times the workflow
gives itself come from ``workflow.uuid4()`` and ``workflow.now()``, so a
replay builds the same events.

Retries are mapped as the durability rules say (DESIGN.md, rule 6): an
activity's steadyflow error is final (the retry loop inside the model-call
activity already ran); Temporal starts an activity again only when its
worker is lost (heartbeat timeout), up to ``worker_loss_attempts``, except
a tool that is not idempotent, which starts at most once: if its worker is
lost the model gets the interrupted-outcome response, as in-process.

A call that asks for a person's confirmation pauses the turn: the pause
event is stored (the record ``WAITING``), and the workflow waits for its
``answer`` signal (no polling), then stores the answer and runs the paused
calls again with it. Clients wait in the ``settled`` update for the turn to
end or pause.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar, cast

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, TimeoutError

with workflow.unsafe.imports_passed_through():
    from pydantic import BaseModel

    from ...events import Event
    from ...flows._functions import response_event
    from ...types import Content, FunctionCall, Part
    from .._keeper import INTERRUPTED_RESPONSE
    from ._payloads import (
        AnswerSignal,
        AppendInput,
        BeginInput,
        BeginResult,
        CallSpec,
        FinishInput,
        InvocationInput,
        InvocationResult,
        Settled,
        StepInput,
        StepResult,
        ToolInput,
        ToolResult,
    )

__all__ = ["WORKFLOW_NAME", "InvocationWorkflow", "details_of"]

WORKFLOW_NAME = "steadyflow.invocation"
"""The workflow type every invocation runs as (its id is the invocation id)."""

_R = TypeVar("_R")


@dataclass
class _Loop:
    """Where the loop stands: who runs, calls used, the step count, ended or handed over."""

    agent: str
    llm_calls: int
    step: int = 0
    ended: bool = False
    transfer_from: str | None = None

    def hand_over(self, target: str) -> None:
        self.transfer_from, self.agent = self.agent, target


def details_of(error: ApplicationError) -> dict[str, Any]:
    """The details dict a steadyflow failure carries (``{"limit": n}`` for the call budget)."""
    first: Any = error.details[0] if error.details else None
    return cast(dict[str, Any], first) if isinstance(first, dict) else {}


def _failure_of(failure: ActivityError) -> tuple[str, str, dict[str, Any]]:
    """The steadyflow error type, message and details behind a failed activity."""
    cause = failure.cause
    if isinstance(cause, ApplicationError):
        return cause.type or "ApplicationError", cause.message, details_of(cause)
    if isinstance(cause, TimeoutError):
        return "TimeoutError", f"activity lost on every attempt: {cause.message}", {}
    return type(cause).__name__, str(cause or failure), {}


def _confirmation(request: FunctionCall, answers: dict[str, Part]) -> dict[str, Any]:
    """The tool's view of a person's answer to ``request`` (``ToolConfirmation``'s fields)."""
    response = answers[request.id or ""].function_response
    given: dict[str, Any] = dict(response.response or {}) if response is not None else {}
    return {
        "confirmed": given.get("confirmed") is True,
        "payload": given.get("payload"),
        "hint": str(request.args.get("hint") or ""),
    }


@workflow.defn(name=WORKFLOW_NAME)
class InvocationWorkflow:
    """One invocation (workflow id = invocation id); see the module docstring."""

    _given: InvocationInput

    def __init__(self) -> None:
        self._events: list[Event] = []
        self._answers: dict[str, Part] = {}  # request id -> the person's answer
        self._pauses = 0  # pause events stored
        self._waiting = self._done = False

    @workflow.update(name="settled")
    async def settled(self, pauses_seen: int) -> Settled:
        """The events once the workflow ended, or paused again after ``pauses_seen`` pauses."""
        await workflow.wait_condition(
            lambda: self._done or (self._waiting and self._pauses > pauses_seen)
        )
        return Settled(events=self._events, waiting=not self._done)

    @workflow.signal(name="answer")
    def answer(self, signal: AnswerSignal) -> None:
        """A person's answers to confirmation requests (checked by the runner that sends them)."""
        for part in signal.message.parts:
            response = part.function_response
            if response is not None and response.id:
                self._answers[response.id] = part

    @workflow.query(name="events")
    def events(self) -> list[Event]:
        """The events stored so far, in order (the user's first)."""
        return list(self._events)

    @workflow.run
    async def run(self, given: InvocationInput) -> InvocationResult:
        """Run the invocation to its end; its stored events are the result."""
        self._given = given
        begun = await self._begin()
        loop = _Loop(agent=begun.agent, llm_calls=begun.llm_calls)
        try:
            if not begun.answered:
                await self._turn(begun, loop)
        except ActivityError as failure:
            error_type, message, details = _failure_of(failure)
            await self._finish(loop, error_type, message)
            await self._settle()
            raise ApplicationError(message, details, type=error_type, non_retryable=True) from None
        await self._finish(loop)
        await self._settle()
        return InvocationResult(events=self._events)

    async def _settle(self) -> None:
        """Let the clients waiting in ``settled`` have their answer before the workflow ends."""
        self._done = True
        await workflow.wait_condition(workflow.all_handlers_finished)

    async def _activity(
        self,
        name: str,
        arg: BaseModel,
        result_type: type[_R],
        seconds: float,
        attempts: int | None = None,
    ) -> _R:
        t = self._given.timeouts
        result: _R = await workflow.execute_activity(
            name,
            arg,
            result_type=result_type,
            start_to_close_timeout=timedelta(seconds=seconds),
            heartbeat_timeout=timedelta(seconds=t.heartbeat_timeout),
            retry_policy=RetryPolicy(
                maximum_attempts=t.worker_loss_attempts if attempts is None else attempts
            ),
        )
        return result

    def _started_at(self) -> float:
        return workflow.info().start_time.timestamp()

    async def _begin(self) -> BeginResult:
        given = self._given
        begin = BeginInput(
            **given.key(),
            new_message=given.new_message,
            user_event_id=workflow.uuid4().hex,
            timestamp=workflow.now().timestamp(),
            max_llm_calls=given.max_llm_calls,
            stream=given.stream,
        )
        begun = await self._activity(
            "steadyflow.begin", begin, BeginResult, given.timeouts.store_timeout
        )
        self._events.extend(begun.events)
        return begun

    async def _turn(self, begun: BeginResult, loop: _Loop) -> None:
        """The in-process loop: steps until the turn is over."""
        if begun.pending_calls:  # a resume whose last model event's calls had no response
            last, target = await self._tools(loop, begun.pending_calls)
            if last is None or loop.ended or last.is_final_response():
                return
            if target:
                loop.hand_over(target)
        while True:
            last, handed_over = await self._step(loop)
            if handed_over:
                continue
            if last is None or loop.ended or last.actions.escalate or last.is_final_response():
                return

    async def _step(self, loop: _Loop) -> tuple[Event | None, bool]:
        """One model call, its events stored, its calls run; (last event, handed over?)."""
        given = self._given
        loop.step += 1
        step = StepInput(
            **given.key(),
            agent=loop.agent,
            transfer_from=loop.transfer_from,
            llm_calls=loop.llm_calls,
            max_llm_calls=given.max_llm_calls,
            stream=given.stream,
            step=loop.step,
            started_at=self._started_at(),
            retry=given.retry,
        )
        result = await self._activity(
            "steadyflow.model_call", step, StepResult, given.timeouts.model_call_timeout
        )
        loop.llm_calls, loop.transfer_from = result.llm_calls, None
        last: Event | None = None
        trace = result.trace
        for event in result.events:
            last = await self._append(loop, event, step_trace=trace)
            trace = None
        if result.end_invocation:
            loop.ended = True
            return last, False
        target = last.actions.transfer_to_agent if last is not None else None
        if result.calls:
            response, target = await self._tools(loop, result.calls)
            last = response or last
        if target and not loop.ended:
            loop.hand_over(target)
            return last, True
        return last, False

    async def _tools(self, loop: _Loop, calls: list[CallSpec]) -> tuple[Event | None, str | None]:
        """Run one event's calls side by side; their stored response event and any transfer."""
        results = list(await asyncio.gather(*(self._tool(loop, spec) for spec in calls)))
        while any(r.request is not None for r in results):
            results = await self._confirmed(loop, calls, results)
        event = response_event(
            [(r.part, r.actions) for r in results],
            invocation_id=self._given.invocation_id,
            author=loop.agent,
            id=workflow.uuid4().hex,
            timestamp=workflow.now().timestamp(),
        )
        if event is None:
            return None, None
        traces = [r.trace for r in results if r.trace is not None]
        stored = await self._append(loop, event, tool_traces=traces)
        if stored.actions.end_invocation:
            loop.ended = True
        return stored, stored.actions.transfer_to_agent

    async def _confirmed(
        self, loop: _Loop, calls: list[CallSpec], results: list[ToolResult]
    ) -> list[ToolResult]:
        """Store the pause, wait for the ``answer`` signal, store it, run the paused calls again."""
        paused = [i for i, r in enumerate(results) if r.request is not None]
        requests = [r for i in paused if (r := results[i].request) is not None]
        pause = Event(
            id=workflow.uuid4().hex,
            timestamp=workflow.now().timestamp(),
            invocation_id=self._given.invocation_id,
            author=loop.agent,
            content=Content(role="model", parts=[Part(function_call=r) for r in requests]),
            long_running_tool_ids=[r.id or "" for r in requests],
        )
        await self._append(loop, pause, waiting=True)
        ids = [r.id or "" for r in requests]
        self._pauses, self._waiting = self._pauses + 1, True
        await workflow.wait_condition(lambda: all(i in self._answers for i in ids))
        self._waiting = False
        answer = Event(
            id=workflow.uuid4().hex,
            timestamp=workflow.now().timestamp(),
            invocation_id=self._given.invocation_id,
            author="user",
            content=Content(role="user", parts=[self._answers[i] for i in ids]),
        )
        await self._append(loop, answer, answered=True)
        again = await asyncio.gather(
            *(
                self._tool(loop, calls[i], _confirmation(r, self._answers))
                for i, r in zip(paused, requests, strict=True)
            )
        )
        updated = list(results)
        for index, result in zip(paused, again, strict=True):
            updated[index] = result
        return updated

    async def _tool(
        self, loop: _Loop, spec: CallSpec, confirmation: dict[str, Any] | None = None
    ) -> ToolResult:
        """One call: at most once unless idempotent; a lost worker's call is interrupted."""
        if spec.known is not None:
            return spec.known
        given, call = self._given, spec.call
        tool = ToolInput(
            **given.key(),
            agent=loop.agent,
            call=call,
            started_at=self._started_at(),
            confirmation=confirmation,
        )
        attempts = given.timeouts.worker_loss_attempts if spec.idempotent else 1
        try:
            return await self._activity(
                "steadyflow.tool_call", tool, ToolResult, given.timeouts.tool_timeout, attempts
            )
        except ActivityError as failure:
            if not isinstance(failure.cause, TimeoutError):
                raise
            interrupted = dict(INTERRUPTED_RESPONSE)
            return ToolResult(part=Part.from_function_response(call.name, interrupted, id=call.id))

    async def _append(
        self,
        loop: _Loop,
        event: Event,
        *,
        step_trace: dict[str, Any] | None = None,
        tool_traces: list[dict[str, Any]] | None = None,
        waiting: bool = False,
        answered: bool = False,
    ) -> Event:
        given = self._given
        append = AppendInput(
            **given.key(),
            event=event,
            llm_calls=loop.llm_calls,
            step_trace=step_trace,
            tool_traces=tool_traces or [],
            waiting=waiting,
            answered=answered,
        )
        stored = await self._activity(
            "steadyflow.append", append, Event, given.timeouts.store_timeout
        )
        self._events.append(stored)
        return stored

    async def _finish(
        self, loop: _Loop, error_type: str | None = None, message: str | None = None
    ) -> None:
        given = self._given
        finish = FinishInput(
            **given.key(), llm_calls=loop.llm_calls, error_type=error_type, error_message=message
        )
        await self._activity("steadyflow.finish", finish, type(None), given.timeouts.store_timeout)
