"""Every exception steadyflow raises, in one shallow tree.

::

    SteadyflowError
    ├── ConfigurationError (also ValueError)   bad arguments, bad templates
    │   ├── MissingStateKeyError               {key} in an instruction, not in state
    │   ├── ModelNotFoundError                 a model name no registry pattern matches
    │   ├── ToolDefinitionError                a function that cannot become a tool
    │   ├── UnknownPriceError                  a max_cost limit on a model with no known price
    │   └── UnboundedOutputError               a hard limit on an attempt with no known output bound
    ├── InvocationLimitError                   a per-invocation limit ends the invocation
    │   ├── LlmCallsLimitExceededError         RunConfig.max_llm_calls reached
    │   └── UsageLimitExceededError            RunConfig.usage_limits / spend_limits reached
    │       └── UsageLimitCutError             a streamed answer passed its reservation: cut
    ├── SpendStoreError                        a spend store could not be read or written
    ├── AgentTransferError                     a transfer the agent tree does not allow
    │   └── AgentNotFoundError                 transfer to an agent that is not there
    ├── NothingToResumeError                   resume found no unfinished invocation
    ├── ConfirmationError (also ValueError)    an answer that fits no waiting confirmation
    │   └── ConfirmationPendingError           a new message while requests wait (opt-in)
    ├── InvocationFailedError                  an invocation run on Temporal ended in error
    ├── PluginError                            a runner plugin's hook raised
    ├── ToolsetUnavailableError                a toolset could not give its tools: the step fails
    │   └── McpTimeoutError                    an MCP server did not connect or list in time
    ├── ToolResponseError                      a tool failed; .response is what the model reads
    │   ├── ToolArgumentsError (also ValueError)  the model's arguments do not fit the tool
    │   ├── ToolNotFoundError (also ValueError)   the model called a tool the agent lacks
    │   ├── NestedConfirmationError            a tool inside an AgentTool asked for confirmation
    │   ├── McpCallTimeoutError                an MCP call past its timeout (cancelled)
    │   └── McpResultTooLargeError             an MCP result over max_result_bytes
    ├── ModelError                             a provider call failed
    │   ├── ModelHTTPError                     the provider answered with an error status
    │   │   └── QuotaExhaustedError            a daily/monthly quota is spent: no retry, no wait
    │   ├── ModelConnectionError               no answer: refused, reset, DNS
    │   ├── ModelTimeoutError                  no answer in time
    │   ├── ModelResponseError                 an answer that could not be parsed
    │   │   └── ModelResponseTooLargeError     an answer over the runner's max_response_bytes
    │   ├── CircuitOpenError                   the breaker for this model is open
    │   └── PacingTimeoutError                 the pacer's wait would pass the call's deadline
    └── SessionError                           the session store refused
        ├── SessionNotFoundError
        ├── StaleSessionError                  another writer appended first
        ├── SessionStoreError                  the database failed: read-only, full, down
        ├── EventTooLargeError                 an event over the store's max_event_bytes
        ├── StaleInvocationError               another process wrote the invocation first
        ├── CorruptSessionError                a session's stored events cannot be read
        ├── CorruptRecordError                 an invocation record that cannot be trusted
        ├── SchemaVersionError                 the database is from a newer steadyflow
        └── TraceFormatError (also ValueError) a stored trace this version cannot read

Model errors carry ``status_code``, ``retry_after`` (seconds, the provider's
own wait hint), lower-cased ``headers`` and the provider's ``body``; provider
adapters raise them with the SDK's exception as ``__cause__``.
``DEFAULT_RETRYABLE_STATUS_CODES`` is the one set of statuses counted as
transient by default (by ``RetryConfig`` and by ``FallbackLlm`` alike).

The classes live in private modules by subject (``_base``, ``_limits``,
``_tools``, ``_toolsets``, ``_model``, ``_sessions``); import them from here.
"""

from __future__ import annotations

from ._base import (
    AgentNotFoundError,
    AgentTransferError,
    ConfigurationError,
    ConfirmationError,
    ConfirmationPendingError,
    InvocationFailedError,
    MissingStateKeyError,
    ModelNotFoundError,
    NothingToResumeError,
    PluginError,
    SteadyflowError,
    ToolDefinitionError,
    UnboundedOutputError,
    UnknownPriceError,
    error_chain,
)
from ._limits import (
    InvocationLimitError,
    LlmCallsLimitExceededError,
    SpendStoreError,
    UsageLimitCutError,
    UsageLimitExceededError,
    call_limit_in_chain,
)
from ._model import (
    DEFAULT_RETRYABLE_STATUS_CODES,
    CircuitOpenError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelResponseError,
    ModelResponseTooLargeError,
    ModelTimeoutError,
    PacingTimeoutError,
    QuotaExhaustedError,
)
from ._sessions import (
    CorruptRecordError,
    CorruptSessionError,
    EventTooLargeError,
    SchemaVersionError,
    SessionError,
    SessionNotFoundError,
    SessionStoreError,
    StaleInvocationError,
    StaleSessionError,
    TraceFormatError,
)
from ._tools import (
    NestedConfirmationError,
    ToolArgumentsError,
    ToolNotFoundError,
    ToolResponseError,
)
from ._toolsets import (
    McpCallTimeoutError,
    McpResultTooLargeError,
    McpTimeoutError,
    ToolsetUnavailableError,
)

__all__ = [
    "DEFAULT_RETRYABLE_STATUS_CODES",
    "AgentNotFoundError",
    "AgentTransferError",
    "CircuitOpenError",
    "ConfigurationError",
    "ConfirmationError",
    "ConfirmationPendingError",
    "CorruptRecordError",
    "CorruptSessionError",
    "EventTooLargeError",
    "InvocationFailedError",
    "InvocationLimitError",
    "LlmCallsLimitExceededError",
    "McpCallTimeoutError",
    "McpResultTooLargeError",
    "McpTimeoutError",
    "MissingStateKeyError",
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelNotFoundError",
    "ModelResponseError",
    "ModelResponseTooLargeError",
    "ModelTimeoutError",
    "NestedConfirmationError",
    "NothingToResumeError",
    "PacingTimeoutError",
    "PluginError",
    "QuotaExhaustedError",
    "SchemaVersionError",
    "SessionError",
    "SessionNotFoundError",
    "SessionStoreError",
    "SpendStoreError",
    "StaleInvocationError",
    "StaleSessionError",
    "SteadyflowError",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "ToolNotFoundError",
    "ToolResponseError",
    "ToolsetUnavailableError",
    "TraceFormatError",
    "UnboundedOutputError",
    "UnknownPriceError",
    "UsageLimitCutError",
    "UsageLimitExceededError",
    "call_limit_in_chain",
    "error_chain",
]
