"""Tools: public because users write their own ``BaseTool`` subclasses."""

from ..context import ToolContext
from .base_tool import BaseTool
from .exit_loop import exit_loop
from .function_tool import FunctionTool, LongRunningFunctionTool, ToolArgumentsError

__all__ = [
    "BaseTool",
    "FunctionTool",
    "LongRunningFunctionTool",
    "ToolArgumentsError",
    "ToolContext",
    "exit_loop",
]
