"""Tools: public because users write their own ``BaseTool`` subclasses."""

from ..context import ToolContext
from .base_tool import BaseTool
from .function_tool import FunctionTool, LongRunningFunctionTool, ToolArgumentsError

__all__ = [
    "BaseTool",
    "FunctionTool",
    "LongRunningFunctionTool",
    "ToolArgumentsError",
    "ToolContext",
]
