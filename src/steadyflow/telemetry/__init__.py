"""OpenTelemetry spans and metrics, written against the API alone.

What steadyflow exports to an OpenTelemetry backend: the span helpers are
here (``_spans``, naming every span and attribute), the metric instruments in
``_metrics``, and ``_api`` decides whether the API can record at all and
imports it only then. Nothing is exported until a user installs an SDK.

Not to be confused with ``steadyflow.trace_record``: the invocation's own
stored record of its steps and attempts, kept in the session store and read
back without any backend.
"""

from __future__ import annotations

from ._spans import (
    ATTR_AGENT_NAME,
    ATTR_BUDGET_LIMIT,
    ATTR_BUDGET_USED,
    ATTR_CONVERSATION_ID,
    ATTR_ERROR_TYPE,
    ATTR_FINISH_REASONS,
    ATTR_INPUT_MESSAGES,
    ATTR_INVOCATION_ID,
    ATTR_LLM_ATTEMPT,
    ATTR_LLM_ATTEMPTS,
    ATTR_LLM_RETRY_DELAY_MS,
    ATTR_OPERATION_NAME,
    ATTR_OUTPUT_MESSAGES,
    ATTR_PROVIDER_NAME,
    ATTR_REQUEST_MODEL,
    ATTR_RESPONSE_MODEL,
    ATTR_SHORT_CIRCUIT,
    ATTR_SHORT_CIRCUITS,
    ATTR_STEP,
    ATTR_STEPS,
    ATTR_TOKEN_TYPE,
    ATTR_TOOL_CALL_ARGUMENTS,
    ATTR_TOOL_CALL_ID,
    ATTR_TOOL_CALL_RESULT,
    ATTR_TOOL_NAME,
    ATTR_TOOL_TYPE,
    CAPTURE_CONTENT_ENV,
    TRACER_NAME,
    activate,
    capture_content,
    end_agent_span,
    record_content,
    record_error,
    record_response,
    set_call_facts,
    start_agent_span,
    start_llm_attempt_span,
    start_llm_call_span,
    start_span,
    start_tool_span,
)

__all__ = [
    "ATTR_AGENT_NAME",
    "ATTR_BUDGET_LIMIT",
    "ATTR_BUDGET_USED",
    "ATTR_CONVERSATION_ID",
    "ATTR_ERROR_TYPE",
    "ATTR_FINISH_REASONS",
    "ATTR_INPUT_MESSAGES",
    "ATTR_INVOCATION_ID",
    "ATTR_LLM_ATTEMPT",
    "ATTR_LLM_ATTEMPTS",
    "ATTR_LLM_RETRY_DELAY_MS",
    "ATTR_OPERATION_NAME",
    "ATTR_OUTPUT_MESSAGES",
    "ATTR_PROVIDER_NAME",
    "ATTR_REQUEST_MODEL",
    "ATTR_RESPONSE_MODEL",
    "ATTR_SHORT_CIRCUIT",
    "ATTR_SHORT_CIRCUITS",
    "ATTR_STEP",
    "ATTR_STEPS",
    "ATTR_TOKEN_TYPE",
    "ATTR_TOOL_CALL_ARGUMENTS",
    "ATTR_TOOL_CALL_ID",
    "ATTR_TOOL_CALL_RESULT",
    "ATTR_TOOL_NAME",
    "ATTR_TOOL_TYPE",
    "CAPTURE_CONTENT_ENV",
    "TRACER_NAME",
    "activate",
    "capture_content",
    "end_agent_span",
    "record_content",
    "record_error",
    "record_response",
    "set_call_facts",
    "start_agent_span",
    "start_llm_attempt_span",
    "start_llm_call_span",
    "start_span",
    "start_tool_span",
]
