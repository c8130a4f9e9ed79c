"""steadyflow: an async agent runtime built around a careful model-call loop.

The curated public API. Extension points live in the public subpackages:
``steadyflow.models`` (write a ``BaseLlm``), ``steadyflow.tools``,
``steadyflow.sessions`` and ``steadyflow.testing``.
"""

from __future__ import annotations

import typing

if typing.TYPE_CHECKING:
    from .agents.base_agent import BaseAgent
    from .agents.llm_agent import LlmAgent
    from .agents.workflow import LoopAgent, ParallelAgent, SequentialAgent
    from .context import CallbackContext, InvocationContext, ReadonlyContext, ToolContext
    from .errors import (
        AgentNotFoundError,
        AgentTransferError,
        CircuitOpenError,
        ConfigurationError,
        EventTooLargeError,
        LlmCallsLimitExceededError,
        MissingStateKeyError,
        ModelConnectionError,
        ModelError,
        ModelHTTPError,
        ModelNotFoundError,
        ModelResponseError,
        ModelResponseTooLargeError,
        ModelTimeoutError,
        PacingTimeoutError,
        PluginError,
        QuotaExhaustedError,
        SchemaVersionError,
        SessionError,
        SessionNotFoundError,
        SessionStoreError,
        StaleSessionError,
        SteadyflowError,
        ToolDefinitionError,
        UnknownPriceError,
        UsageLimitExceededError,
    )
    from .events import Event, EventActions
    from .history.policy import Compaction, HistoryPolicy
    from .live_request_queue import LiveRequest, LiveRequestQueue
    from .retry._config import RetryConfig
    from .run_config import RunConfig, StreamingMode
    from .runner import InMemoryRunner, Runner
    from .sessions.base import BaseSessionService, Session
    from .sessions.in_memory import InMemorySessionService
    from .tools.agent_tool import AgentTool
    from .tools.base_tool import BaseTool
    from .tools.function_tool import FunctionTool, LongRunningFunctionTool
    from .types import (
        Blob,
        Citation,
        Content,
        FunctionCall,
        FunctionDeclaration,
        FunctionResponse,
        GenerateContentConfig,
        Part,
        ProviderData,
        ThinkingConfig,
        UsageMetadata,
    )
    from .usage.limits import SpendLimit, UsageLimits
    from .usage.prices import ModelPrice

__version__ = "0.1.0"

# Public name -> the submodule defining it. Loaded on first access (PEP 562), so
# ``import steadyflow`` stays cheap and a script pays only for what it uses.
_LAZY: dict[str, str] = {
    "AgentNotFoundError": "errors",
    "AgentTool": "tools.agent_tool",
    "AgentTransferError": "errors",
    "BaseAgent": "agents.base_agent",
    "BaseSessionService": "sessions.base",
    "BaseTool": "tools.base_tool",
    "Blob": "types",
    "CallbackContext": "context",
    "CircuitOpenError": "errors",
    "Citation": "types",
    "Compaction": "history.policy",
    "ConfigurationError": "errors",
    "Content": "types",
    "Event": "events",
    "EventActions": "events",
    "EventTooLargeError": "errors",
    "FunctionCall": "types",
    "FunctionDeclaration": "types",
    "FunctionResponse": "types",
    "FunctionTool": "tools.function_tool",
    "GenerateContentConfig": "types",
    "HistoryPolicy": "history.policy",
    "InMemoryRunner": "runner",
    "InMemorySessionService": "sessions.in_memory",
    "InvocationContext": "context",
    "LiveRequest": "live_request_queue",
    "LiveRequestQueue": "live_request_queue",
    "LlmAgent": "agents.llm_agent",
    "LlmCallsLimitExceededError": "errors",
    "LongRunningFunctionTool": "tools.function_tool",
    "LoopAgent": "agents.workflow",
    "MissingStateKeyError": "errors",
    "ModelConnectionError": "errors",
    "ModelError": "errors",
    "ModelHTTPError": "errors",
    "ModelNotFoundError": "errors",
    "ModelPrice": "usage.prices",
    "ModelResponseError": "errors",
    "ModelResponseTooLargeError": "errors",
    "ModelTimeoutError": "errors",
    "PacingTimeoutError": "errors",
    "ParallelAgent": "agents.workflow",
    "Part": "types",
    "PluginError": "errors",
    "ProviderData": "types",
    "QuotaExhaustedError": "errors",
    "ReadonlyContext": "context",
    "RetryConfig": "retry._config",
    "RunConfig": "run_config",
    "Runner": "runner",
    "SchemaVersionError": "errors",
    "SequentialAgent": "agents.workflow",
    "Session": "sessions.base",
    "SessionError": "errors",
    "SessionNotFoundError": "errors",
    "SessionStoreError": "errors",
    "SpendLimit": "usage.limits",
    "StaleSessionError": "errors",
    "SteadyflowError": "errors",
    "StreamingMode": "run_config",
    "ThinkingConfig": "types",
    "ToolContext": "context",
    "ToolDefinitionError": "errors",
    "UnknownPriceError": "errors",
    "UsageLimitExceededError": "errors",
    "UsageLimits": "usage.limits",
    "UsageMetadata": "types",
}


__all__ = [
    "AgentNotFoundError",
    "AgentTool",
    "AgentTransferError",
    "BaseAgent",
    "BaseSessionService",
    "BaseTool",
    "Blob",
    "CallbackContext",
    "CircuitOpenError",
    "Citation",
    "Compaction",
    "ConfigurationError",
    "Content",
    "Event",
    "EventActions",
    "EventTooLargeError",
    "FunctionCall",
    "FunctionDeclaration",
    "FunctionResponse",
    "FunctionTool",
    "GenerateContentConfig",
    "HistoryPolicy",
    "InMemoryRunner",
    "InMemorySessionService",
    "InvocationContext",
    "LiveRequest",
    "LiveRequestQueue",
    "LlmAgent",
    "LlmCallsLimitExceededError",
    "LongRunningFunctionTool",
    "LoopAgent",
    "MissingStateKeyError",
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelNotFoundError",
    "ModelPrice",
    "ModelResponseError",
    "ModelResponseTooLargeError",
    "ModelTimeoutError",
    "PacingTimeoutError",
    "ParallelAgent",
    "Part",
    "PluginError",
    "ProviderData",
    "QuotaExhaustedError",
    "ReadonlyContext",
    "RetryConfig",
    "RunConfig",
    "Runner",
    "SchemaVersionError",
    "SequentialAgent",
    "Session",
    "SessionError",
    "SessionNotFoundError",
    "SessionStoreError",
    "SpendLimit",
    "StaleSessionError",
    "SteadyflowError",
    "StreamingMode",
    "ThinkingConfig",
    "ToolContext",
    "ToolDefinitionError",
    "UnknownPriceError",
    "UsageLimitExceededError",
    "UsageLimits",
    "UsageMetadata",
]


# Hidden from type checkers, which see the TYPE_CHECKING imports instead: a visible
# module __getattr__ would make them accept any name, typos included.
if not typing.TYPE_CHECKING:
    from ._lazy import lazy_attributes

    __getattr__, __dir__ = lazy_attributes(__name__, globals(), _LAZY, __all__)
