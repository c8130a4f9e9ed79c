"""Tools: public because users write their own ``BaseTool`` and ``BaseToolset`` subclasses."""

from ..context import ToolContext
from ..errors import ToolArgumentsError
from .base_tool import BaseTool
from .base_toolset import BaseToolset
from .exit_loop import exit_loop
from .function_tool import FunctionTool, LongRunningFunctionTool, idempotent

__all__ = [
    "BaseTool",
    "BaseToolset",
    "FunctionTool",
    "LongRunningFunctionTool",
    "ToolArgumentsError",
    "ToolContext",
    "exit_loop",
    "idempotent",
]
