"""What the workflow and its activities send each other (pydantic, JSON in Temporal's history).

Every payload is plain data: events and calls as steadyflow's own models,
ids as strings, counts as ints. Nothing here refers to an agent object or a
store: a worker finds those by name (the agent tree it was started with, the
session store it opened), so any worker of the fleet can run any activity.
Changing a field's meaning breaks the replay of running workflows: add
fields with defaults instead (the replay test guards this).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...events import Event, EventActions
from ...types import Content, FunctionCall, Part
from ._settings import TimeoutSettings

__all__ = [
    "AnswerSignal",
    "AppendInput",
    "BeginInput",
    "BeginResult",
    "CallSpec",
    "FinishInput",
    "InvocationInput",
    "InvocationResult",
    "Settled",
    "StepInput",
    "StepResult",
    "ToolInput",
    "ToolResult",
]


class _Payload(BaseModel):
    model_config = ConfigDict(extra="forbid")


class InvocationInput(_Payload):
    """A workflow's input: which invocation of which session, and its budget.

    ``new_message`` is None for a resume (the invocation's user event is
    stored already).
    """

    app_name: str
    user_id: str
    session_id: str
    invocation_id: str
    new_message: Content | None = None
    max_llm_calls: int = 500
    stream: bool = False
    timeouts: TimeoutSettings = Field(default_factory=TimeoutSettings)
    retry: dict[str, Any] | None = None

    def key(self) -> dict[str, str]:
        """The four ids every activity needs, for its own input."""
        return {
            "app_name": self.app_name,
            "user_id": self.user_id,
            "session_id": self.session_id,
            "invocation_id": self.invocation_id,
        }


class _Keyed(_Payload):
    app_name: str
    user_id: str
    session_id: str
    invocation_id: str


class CallSpec(_Payload):
    """A function call to run, and whether its tool may run again after a lost worker."""

    call: FunctionCall
    idempotent: bool = False
    known: ToolResult | None = None


class BeginInput(_Keyed):
    """The begin activity's input: the user's message (None on a resume) and its event's id."""

    new_message: Content | None = None
    user_event_id: str
    timestamp: float
    max_llm_calls: int
    stream: bool = False


class BeginResult(_Payload):
    """Where the invocation stands once begun: who runs next, calls used, pending calls."""

    agent: str
    llm_calls: int = 0
    pending_calls: list[CallSpec] = Field(default_factory=lambda: [])
    answered: bool = False
    events: list[Event] = Field(default_factory=lambda: [])


class StepInput(_Keyed):
    """One model call: the agent making it, the calls used so far, the step's number."""

    agent: str
    transfer_from: str | None = None
    llm_calls: int
    max_llm_calls: int
    stream: bool = False
    step: int
    started_at: float = 0.0
    retry: dict[str, Any] | None = None


class StepResult(_Payload):
    """One model call's complete events (not stored yet), the calls to run, calls used."""

    events: list[Event] = Field(default_factory=lambda: [])
    calls: list[CallSpec] = Field(default_factory=lambda: [])
    llm_calls: int
    end_invocation: bool = False
    trace: dict[str, Any] | None = None


class ToolInput(_Keyed):
    """One tool call of ``agent``'s."""

    agent: str
    call: FunctionCall
    started_at: float = 0.0
    confirmation: dict[str, Any] | None = None


class ToolResult(_Payload):
    """A tool call's response part (None: a long-running tool answers later) and actions."""

    part: Part | None = None
    actions: EventActions | None = None
    trace: dict[str, Any] | None = None
    request: FunctionCall | None = None


class AppendInput(_Keyed):
    """An event to store (at most once, by its id), with the calls used and its step's trace.

    ``waiting``: the event is a pause (the record waits for a person);
    ``answered``: the event is the person's answer (the record runs again).
    """

    event: Event
    llm_calls: int
    step_trace: dict[str, Any] | None = None
    tool_traces: list[dict[str, Any]] = Field(default_factory=lambda: [])
    waiting: bool = False
    answered: bool = False


class AnswerSignal(_Payload):
    """A person's answers to an invocation's confirmation requests (the ``answer`` signal)."""

    message: Content


class FinishInput(_Keyed):
    """How the invocation ended: ``error_type`` None for success."""

    llm_calls: int
    error_type: str | None = None
    error_message: str | None = None


class Settled(_Payload):
    """Where a workflow settled for its client: its events, and whether it waits for a person."""

    events: list[Event] = Field(default_factory=lambda: [])
    waiting: bool = False


class InvocationResult(_Payload):
    """A finished workflow's result: the events it stored, in order."""

    events: list[Event] = Field(default_factory=lambda: [])
