"""The stored trace of one invocation: plain dataclasses, JSON in its record.

Every invocation's record (``steadyflow.sessions.InvocationRecord``) holds
its trace; stores keep this schema as compact JSON text, without ``None``
fields. Text rather than nested dicts: a string is a quarter of the memory
of the same dicts and lists, and the garbage collector never scans it.
Older sessions kept it in an event authored ``"steadyflow"`` under
``custom_metadata["steadyflow.trace"]``; version 1 of the format stored the
dict itself; ``from_stored`` reads both. Times
are seconds since the invocation started (``started_at`` is the wall-clock
start), so a trace reads the same whatever the machine's clock said.

The records are mutable while the invocation runs (the recorder fills them
in) and validated by pydantic when read back (``InvocationTrace.from_dict``).
The per-call records write their ``__init__`` out by hand: a generated
keyword-only one costs twice as much, on every model call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from pydantic import ConfigDict, TypeAdapter, ValidationError

from .._empty import list_of
from ..errors import TraceFormatError

__all__ = [
    "TRACE_AUTHOR",
    "TRACE_METADATA_KEY",
    "TRACE_VERSION",
    "AttemptTrace",
    "InvocationTrace",
    "StepTrace",
    "ToolTrace",
]

TRACE_AUTHOR = "steadyflow"
"""The author of the trace events that sessions of earlier versions stored."""
TRACE_METADATA_KEY = "steadyflow.trace"
"""The ``custom_metadata`` key of such a trace event."""
TRACE_VERSION = 2
"""The version of the stored trace's JSON layout."""

Status = Literal["running", "ok", "error", "cancelled"]


@dataclass(slots=True, init=False)
class AttemptTrace:
    """One provider attempt.

    Attributes:
        number: 1 for the first attempt of the call.
        start: when the attempt started (after its wait).
        end: when it failed or its complete response arrived.
        delay: seconds waited before this attempt (0 for the first).
        delay_from_retry_after: the provider's Retry-After hint set that wait.
        paced: the part of ``delay`` spent waiting for the pacer (``RetryConfig.pacer``).
        status: ``ok``, ``error``, or ``running`` if the invocation stopped first.
        error_type: the exception class of a failed attempt.
        status_code: the HTTP-like status of a failed attempt.
        retry_after: the wait hint the provider sent with the failure.
        outcome: after a failure: ``retry``, or why the policy gave up.
        input_tokens / output_tokens: the usage the attempt reported (a
            failed attempt's too, when the provider reported some).
        cost: its price in US dollars, when the model's price is known.
        usage_estimated: True when the provider reported no valid usage and
            the tokens are steadyflow's estimate, charged instead (None otherwise).
    """

    number: int
    start: float
    end: float | None = None
    delay: float = 0.0
    delay_from_retry_after: bool = False
    paced: float | None = None
    status: Status = "running"
    error_type: str | None = None
    status_code: int | None = None
    retry_after: float | None = None
    outcome: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: Decimal | None = None
    usage_estimated: bool | None = None

    def __init__(
        self,
        number: int,
        start: float,
        delay: float = 0.0,
        delay_from_retry_after: bool = False,
        *,
        end: float | None = None,
        paced: float | None = None,
        status: Status = "running",
        error_type: str | None = None,
        status_code: int | None = None,
        retry_after: float | None = None,
        outcome: str | None = None,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        cost: Decimal | None = None,
        usage_estimated: bool | None = None,
    ) -> None:
        # Written out (not generated): records are made on every model call.
        self.number, self.start, self.end, self.paced = number, start, end, paced
        self.delay, self.delay_from_retry_after = delay, delay_from_retry_after
        self.status, self.error_type, self.status_code = status, error_type, status_code
        self.retry_after, self.outcome = retry_after, outcome
        self.input_tokens, self.output_tokens, self.cost = input_tokens, output_tokens, cost
        self.usage_estimated = usage_estimated


@dataclass(slots=True, init=False)
class ToolTrace:
    """One tool call.

    Attributes:
        name: the tool.
        call_id: the function call's id.
        start: when dispatch started (before-tool callbacks included).
        end: when the tool's response was ready.
        status: ``ok``; ``error`` when the tool raised, got bad arguments or
            does not exist (the model then reads an error response).
        error_type: the exception class (or ``UnknownTool``) on error.
        short_circuit: ``before_tool_callback`` when a callback answered
            instead of the tool; ``confirmation`` when the call paused for a
            person's confirmation, ``declined`` when the person declined it.
        server: the server that provides the tool (an MCP server's name),
            None for a local tool.
    """

    name: str
    call_id: str | None
    start: float
    end: float | None = None
    status: Status = "running"
    error_type: str | None = None
    short_circuit: str | None = None
    server: str | None = None

    def __init__(
        self,
        name: str,
        call_id: str | None,
        start: float,
        *,
        end: float | None = None,
        status: Status = "running",
        error_type: str | None = None,
        short_circuit: str | None = None,
        server: str | None = None,
    ) -> None:
        self.name, self.call_id, self.start, self.end = name, call_id, start, end
        self.status, self.error_type, self.short_circuit = status, error_type, short_circuit
        self.server = server


@dataclass(slots=True, init=False)
class StepTrace:
    """One step: a logical model call and the tool calls it asked for.

    Attributes:
        number: 1-based, across the whole invocation (transfers included).
        agent: the agent that ran the step.
        start / end: the step's span of time, tools included.
        model: the model called (None when a callback answered instead).
        attempts: provider attempts, in order.
        tools: tool calls, in call order.
        input_tokens / output_tokens: usage the provider reported.
        cost: US dollars of its priced attempts.
        finish_reason: the complete response's finish reason.
        short_circuit: ``before_model_callback`` (no model call) or
            ``on_model_error_callback`` (a callback replaced a failed call).
        path: the agents from the root down to ``agent``, when it is not
            the root (a workflow's stage: ``["pipeline", "fan_out", "news"]``).
        warnings: what the step went without (an optional toolset that
            could not load: which, why, its missing tools).
    """

    number: int
    agent: str
    start: float
    end: float | None = None
    model: str | None = None
    attempts: list[AttemptTrace] = field(default_factory=lambda: [])
    tools: list[ToolTrace] = field(default_factory=lambda: [])
    input_tokens: int | None = None
    output_tokens: int | None = None
    finish_reason: str | None = None
    short_circuit: str | None = None
    path: list[str] | None = None
    cost: Decimal | None = None
    warnings: list[str] | None = None

    def __init__(
        self,
        number: int,
        agent: str,
        start: float,
        *,
        end: float | None = None,
        model: str | None = None,
        attempts: list[AttemptTrace] | None = None,
        tools: list[ToolTrace] | None = None,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        finish_reason: str | None = None,
        short_circuit: str | None = None,
        path: list[str] | None = None,
        cost: Decimal | None = None,
        warnings: list[str] | None = None,
    ) -> None:
        self.number, self.agent, self.start, self.end, self.model = number, agent, start, end, model
        self.path, self.cost, self.warnings = path, cost, warnings
        self.attempts = [] if attempts is None else attempts
        self.tools = [] if tools is None else tools
        self.input_tokens, self.output_tokens = input_tokens, output_tokens
        self.finish_reason, self.short_circuit = finish_reason, short_circuit


@dataclass(slots=True, kw_only=True)
class InvocationTrace:
    """What one invocation did, step by step and attempt by attempt.

    Attributes:
        version: the schema version.
        invocation_id: the invocation.
        started_at: wall-clock start (seconds since the epoch).
        duration: seconds from start to the end of the invocation.
        status: ``ok``, ``error`` or ``cancelled`` (the caller stopped early).
        error_type / error_message: what ended an invocation in error.
        budget_used / budget_limit: provider attempts counted against
            ``max_llm_calls`` (limit <= 0: no budget).
        input_tokens / output_tokens: totals over the steps.
        cost: US dollars over the steps (None when no attempt was priced).
        steps: the steps, in the order they started.
    """

    # ``_ADAPTER`` builds its validator on first use, not at import.
    __pydantic_config__ = ConfigDict(defer_build=True)

    version: int = TRACE_VERSION
    invocation_id: str = ""
    started_at: float = 0.0
    duration: float | None = None
    status: Status = "running"
    error_type: str | None = None
    error_message: str | None = None
    budget_used: int = 0
    budget_limit: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: Decimal | None = None
    steps: list[StepTrace] = field(default_factory=list_of(StepTrace))

    def to_dict(self) -> dict[str, Any]:
        """The trace as JSON-ready dicts and lists (``None`` fields dropped)."""
        dumped: dict[str, Any] = _ADAPTER.dump_python(self, mode="json", exclude_none=True)
        return dumped

    def to_json(self) -> str:
        """The compact JSON text stored in the trace event (``None`` fields dropped)."""
        return _ADAPTER.dump_json(self, exclude_none=True).decode()

    @classmethod
    def from_stored(cls, data: Any) -> InvocationTrace:
        """Read back what a trace event stores: JSON text, or a version 1 dict.

        Raises:
            TraceFormatError: ``data`` is not a trace this version understands.
        """
        if not isinstance(data, str | bytes):
            return cls.from_dict(data)
        try:
            return _ADAPTER.validate_json(data)
        except ValidationError as error:
            raise TraceFormatError(f"not a steadyflow trace: {error}") from None

    @classmethod
    def from_dict(cls, data: Any) -> InvocationTrace:
        """Read a stored trace back.

        Raises:
            TraceFormatError: ``data`` is not a trace this version understands.
        """
        try:
            return _ADAPTER.validate_python(data)
        except ValidationError as error:
            raise TraceFormatError(f"not a steadyflow trace: {error}") from None

    @property
    def attempts(self) -> int:
        """Provider attempts over all steps."""
        return sum(len(step.attempts) for step in self.steps)

    @property
    def retries(self) -> int:
        """Attempts after the first, over all steps."""
        return sum(max(0, len(step.attempts) - 1) for step in self.steps)


_ADAPTER: TypeAdapter[InvocationTrace] = TypeAdapter(InvocationTrace)
