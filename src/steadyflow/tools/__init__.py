"""Tools: public because users write their own ``BaseTool`` and ``BaseToolset`` subclasses."""

from .._confirmation import (
    REQUEST_CONFIRMATION_NAME,
    ConfirmationRequest,
    ToolConfirmation,
    confirmation_answer,
    confirmation_requests,
)
from ..context import ToolContext
from ..errors import ToolArgumentsError, ToolDefinitionError, ToolNotFoundError
from .agent_tool import AgentTool
from .base_tool import BaseTool
from .base_toolset import BaseToolset
from .exit_loop import exit_loop
from .function_tool import (
    ConfirmationPredicate,
    FunctionTool,
    LongRunningFunctionTool,
    idempotent,
)

__all__ = [
    "REQUEST_CONFIRMATION_NAME",
    "AgentTool",
    "BaseTool",
    "BaseToolset",
    "ConfirmationPredicate",
    "ConfirmationRequest",
    "FunctionTool",
    "LongRunningFunctionTool",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "ToolNotFoundError",
    "ToolConfirmation",
    "ToolContext",
    "confirmation_answer",
    "confirmation_requests",
    "exit_loop",
    "idempotent",
]
