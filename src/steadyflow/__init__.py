"""steadyflow: an async agent runtime built around a careful model-call loop.

The curated public API. Extension points live in the public subpackages:
``steadyflow.models`` (write a ``BaseLlm``), ``steadyflow.tools``,
``steadyflow.sessions`` and ``steadyflow.testing``.
"""

from .agents.base_agent import BaseAgent
from .agents.llm_agent import LlmAgent
from .context import CallbackContext, InvocationContext, ToolContext
from .errors import (
    AgentNotFoundError,
    CircuitOpenError,
    ConfigurationError,
    LlmCallsLimitExceededError,
    MissingStateKeyError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelNotFoundError,
    ModelResponseError,
    ModelTimeoutError,
    SchemaVersionError,
    SessionError,
    SessionNotFoundError,
    StaleSessionError,
    SteadyflowError,
)
from .events import Event, EventActions
from .history.policy import Compaction, HistoryPolicy
from .live_request_queue import LiveRequest, LiveRequestQueue
from .retry.config import RetryConfig
from .run_config import RunConfig, StreamingMode
from .runner import InMemoryRunner, Runner
from .sessions.base import BaseSessionService, Session
from .sessions.in_memory import InMemorySessionService
from .tools.base_tool import BaseTool
from .tools.function_tool import FunctionTool, LongRunningFunctionTool
from .types import (
    Blob,
    Content,
    FunctionCall,
    FunctionDeclaration,
    FunctionResponse,
    GenerateContentConfig,
    Part,
    UsageMetadata,
)

__version__ = "0.1.0"

__all__ = [
    "AgentNotFoundError",
    "BaseAgent",
    "BaseSessionService",
    "BaseTool",
    "Blob",
    "CallbackContext",
    "CircuitOpenError",
    "Compaction",
    "ConfigurationError",
    "Content",
    "Event",
    "EventActions",
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
    "MissingStateKeyError",
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelNotFoundError",
    "ModelResponseError",
    "ModelTimeoutError",
    "Part",
    "RetryConfig",
    "RunConfig",
    "Runner",
    "SchemaVersionError",
    "Session",
    "SessionError",
    "SessionNotFoundError",
    "StaleSessionError",
    "SteadyflowError",
    "StreamingMode",
    "ToolContext",
    "UsageMetadata",
]
