"""The postprocess step's conversion: a model response becomes an event."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..context import InvocationContext
from ..events import Event, EventActions
from ..models.llm_response import LlmResponse

if TYPE_CHECKING:
    from ._agent import FlowAgent

__all__ = ["response_to_event"]

logger = logging.getLogger("steadyflow.flow")

# The response fields an event copies (all default to None on both sides).
_RESPONSE_FIELDS = frozenset(
    {
        "content",
        "partial",
        "turn_complete",
        "finish_reason",
        "error_code",
        "error_message",
        "usage_metadata",
        "custom_metadata",
        "model_version",
        "response_id",
        "service_tier",
        "grounding_metadata",
    }
)


def _output_value(agent: FlowAgent, text: str) -> object:
    """The value ``output_key`` stores: the validated JSON object, or the text."""
    schema = agent.output_schema
    if schema is None:
        return text
    try:
        return schema.model_validate_json(text).model_dump(mode="json")
    except (ValidationError, json.JSONDecodeError) as error:
        logger.warning(
            "agent %r: answer does not match output_schema %s (%s); storing the raw text",
            agent.name,
            schema.__name__,
            error.__class__.__name__,
        )
        return text


def response_to_event(
    agent: FlowAgent, ctx: InvocationContext, response: LlmResponse, actions: EventActions | None
) -> Event | None:
    """The event for ``response``, or None when it carries nothing.

    ``actions`` (state written by model callbacks) go on complete events only.
    A final answer is saved under ``output_key``; with an ``output_schema``, a
    whitespace-only answer saves nothing (it is no JSON at all).
    """
    if response.content is None and response.error_code is None and not response.turn_complete:
        return None
    fields: dict[str, Any] = {"invocation_id": ctx.invocation_id, "author": agent.name}
    # Only what is set: each field passed is validated and kept in the event's
    # fields-set (whose memory grows past four names), on every model call.
    # A field never set holds its default, None: only the set ones are read.
    if ctx.branch is not None:
        fields["branch"] = ctx.branch
    for name in response.model_fields_set & _RESPONSE_FIELDS:
        value = getattr(response, name)
        if value is not None:
            fields[name] = value
    if actions is not None and not response.partial:
        fields["actions"] = actions
    event = Event(**fields)
    if (
        agent.output_key
        and not event.partial
        and event.error_code is None
        and event.is_final_response()
        and (event.text.strip() if agent.output_schema is not None else event.text)
    ):
        value = _output_value(agent, event.text)
        event.actions.state_delta[agent.output_key] = value
    return event
