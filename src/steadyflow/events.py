"""Events: the session's transcript and what ``Runner.run_async`` yields.

The session's events are the only record of a conversation: the request for
every model call is rebuilt from them. Partial events (streamed text for
display) are yielded to the caller but never stored.
"""

from __future__ import annotations

import os
import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .types import Content, FunctionCall, FunctionResponse, UsageMetadata

__all__ = ["Event", "EventActions", "new_event_id"]


def new_event_id() -> str:
    """A fresh random event id (128 random bits, hex)."""
    return os.urandom(16).hex()


class EventActions(BaseModel):
    """Side effects an event carries, applied when it is appended.

    Attributes:
        state_delta: keys to set in session state; ``app:``/``user:`` prefixed
            keys go to the app/user scope, ``temp:`` keys are never persisted.
        transfer_to_agent: hand the invocation to the named agent.
        escalate: end the current agent's turn and return control upward.
        end_invocation: stop the invocation after this event.
        skip_summarization: do not ask the model to summarize this tool result.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    state_delta: dict[str, Any] = Field(default_factory=dict)
    transfer_to_agent: str | None = None
    escalate: bool | None = None
    end_invocation: bool = False
    skip_summarization: bool | None = None

    def is_empty(self) -> bool:
        """True when the event changes nothing."""
        return not (
            self.state_delta
            or self.transfer_to_agent
            or self.escalate
            or self.end_invocation
            or self.skip_summarization
        )


class Event(BaseModel):
    """One entry of a session: a message, a tool call or result, or an error.

    Treat stored events as immutable: sessions share them between turns.
    Each event has its own ``actions`` (empty by default); empty actions are
    left out of stored rows, so they cost nothing on disk.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str = Field(default_factory=new_event_id)
    invocation_id: str = ""
    author: str
    branch: str | None = None
    content: Content | None = None
    partial: bool | None = None
    turn_complete: bool | None = None
    finish_reason: str | None = None
    actions: EventActions = Field(default_factory=EventActions)
    long_running_tool_ids: list[str] | None = None
    timestamp: float = Field(default_factory=time.time)
    usage_metadata: UsageMetadata | None = None
    error_code: str | None = None
    error_message: str | None = None
    custom_metadata: dict[str, Any] | None = None
    model_version: str | None = None
    response_id: str | None = None
    service_tier: str | None = None
    grounding_metadata: dict[str, Any] | None = None

    def get_function_calls(self) -> list[FunctionCall]:
        """The function calls in this event's content, in order."""
        calls: list[FunctionCall] = []
        if self.content is not None:
            for part in self.content.parts:  # a loop: asked of every complete model event
                if part.function_call is not None:
                    calls.append(part.function_call)
        return calls

    def get_function_responses(self) -> list[FunctionResponse]:
        """The function responses in this event's content, in order."""
        responses: list[FunctionResponse] = []
        if self.content is not None:
            for part in self.content.parts:  # a loop: asked of every stored event
                if part.function_response is not None:
                    responses.append(part.function_response)
        return responses

    @property
    def text(self) -> str:
        """The event's text ("" when it has none)."""
        return self.content.text if self.content is not None else ""

    def is_final_response(self) -> bool:
        """True when this event ends the agent's turn.

        That is a complete (non-partial) event with no function calls or
        responses, a tool result the model is told not to summarize, or an
        event whose tool calls are all long-running (the turn waits outside).
        """
        if self.actions.skip_summarization or self.long_running_tool_ids:
            return True
        if self.partial:
            return False
        if self.content is None:
            return True
        for part in self.content.parts:  # a loop, not any(genexpr): asked after every step
            if part.function_call is not None or part.function_response is not None:
                return False
        return True
