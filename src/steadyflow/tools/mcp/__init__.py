"""MCP toolsets: the tools of Model Context Protocol servers, on the official ``mcp`` SDK.

Needs the extra: ``pip install 'steadyflow[mcp]'``.
"""

try:
    import mcp as _mcp  # pyright: ignore[reportUnusedImport]  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the install
    raise ImportError("MCP toolsets need the mcp SDK: pip install 'steadyflow[mcp]'") from error

from ._tool import McpTool, result_to_response
from ._toolset import McpConfirmation, McpToolset

__all__ = ["McpConfirmation", "McpTool", "McpToolset", "result_to_response"]
