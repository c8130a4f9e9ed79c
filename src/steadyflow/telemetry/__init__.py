"""OpenTelemetry spans and metrics, written against the API alone.

What steadyflow exports to an OpenTelemetry backend: the span helpers are
here (``_spans``, naming every span and attribute), the metric instruments in
``_metrics``, and ``_api`` decides whether the API can record at all and
imports it only then. Nothing is exported until a user installs an SDK.

Not to be confused with ``steadyflow.trace_record``: the invocation's own
stored record of its steps and attempts, kept in the session store and read
back without any backend.

The ``ATTR_*`` constants are the span attribute names steadyflow sets (the
OpenTelemetry GenAI conventions' where one exists, ``steadyflow.*`` where
not); docs/telemetry.md says on which span each appears.

Attributes:
    ATTR_AGENT_NAME: ``gen_ai.agent.name``, the agent's name.
    ATTR_BUDGET_LIMIT: ``steadyflow.llm.budget.limit``, the invocation's ``max_llm_calls``.
    ATTR_BUDGET_USED: ``steadyflow.llm.budget.used``, attempts counted against it.
    ATTR_CONVERSATION_ID: ``gen_ai.conversation.id``, the session id.
    ATTR_ERROR_TYPE: ``error.type``, the exception's type name on a failure.
    ATTR_FINISH_REASONS: ``gen_ai.response.finish_reasons`` of the answer.
    ATTR_INPUT_MESSAGES: ``gen_ai.input.messages``, the request as JSON (opt-in).
    ATTR_INVOCATION_ID: ``steadyflow.invocation.id``.
    ATTR_LLM_ATTEMPT: ``steadyflow.llm.attempt``, an attempt's number (1 = first).
    ATTR_LLM_ATTEMPTS: ``steadyflow.llm.attempts``, attempts of one model call.
    ATTR_LLM_RETRY_DELAY_MS: ``steadyflow.llm.retry.delay_ms``, the wait before an attempt.
    ATTR_OPERATION_NAME: ``gen_ai.operation.name`` (``invoke_agent``, ``chat``, ``execute_tool``).
    ATTR_OUTPUT_MESSAGES: ``gen_ai.output.messages``, the answer as JSON (opt-in).
    ATTR_PROVIDER_NAME: ``gen_ai.provider.name``, the model's provider.
    ATTR_REQUEST_MODEL: ``gen_ai.request.model``, the model asked for.
    ATTR_RESPONSE_MODEL: ``gen_ai.response.model``, the model that answered.
    ATTR_SHORT_CIRCUIT: ``steadyflow.callback.short_circuit``, the callback that answered.
    ATTR_SHORT_CIRCUITS: ``steadyflow.callback.short_circuits``, how many answered.
    ATTR_STEP: ``steadyflow.step``, the step a model call is.
    ATTR_STEPS: ``steadyflow.steps``, the steps of an agent run.
    ATTR_TOKEN_TYPE: ``gen_ai.token.type`` (``input``/``output``) on token metrics.
    ATTR_TOOL_CALL_ARGUMENTS: ``gen_ai.tool.call.arguments`` as JSON (opt-in).
    ATTR_TOOL_CALL_ID: ``gen_ai.tool.call.id``.
    ATTR_TOOL_CALL_RESULT: ``gen_ai.tool.call.result`` as JSON (opt-in).
    ATTR_TOOL_NAME: ``gen_ai.tool.name``.
    ATTR_TOOL_TYPE: ``gen_ai.tool.type`` (``function``).
    ATTR_USAGE_COST: ``steadyflow.usage.cost``, a model call's price in US dollars
        (when the model's price is known).
    CAPTURE_CONTENT_ENV: the variable that opts in to recording message
        content (``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``).
    TRACER_NAME: the instrumentation scope of steadyflow's tracer and meter.
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
    ATTR_USAGE_COST,
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
    "ATTR_USAGE_COST",
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
