"""``McpTool``: one tool of an MCP server, as the flow sees a tool.

Arguments are checked against the tool's ``inputSchema`` before the call
(JSON Schema 2020-12, with the ``jsonschema`` package the ``mcp`` SDK
depends on). Results become the function response:

- structured content (``structuredContent``) is the response when it is a
  JSON object, else its ``"result"``; the text blocks beside it are its
  serialized copy and are left out;
- otherwise text blocks alone are joined into the ``"result"`` string;
- any other mix is listed under ``"content"``: text, images and audio
  (base64 ``data`` with ``mime_type``), embedded resources (``uri`` with
  ``text`` or base64 ``blob``) and resource links.

The call's ``execute_tool`` span gets ``mcp.method.name`` (``tools/call``)
and ``steadyflow.mcp.server`` (the toolset's name for its server).

A result with ``isError`` raises ``ToolResponseError`` whose response is
``{"error": <the server's text>, "is_error": True}``.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

import jsonschema
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    Tool,
)
from opentelemetry import trace

from ..._json import is_object
from ...context import ToolContext
from ...errors import ToolArgumentsError, ToolResponseError
from ...types import FunctionDeclaration
from ..base_tool import BaseTool

if TYPE_CHECKING:
    from ._toolset import McpToolset

__all__ = ["ATTR_MCP_METHOD", "ATTR_MCP_SERVER", "McpTool", "result_to_response"]

ATTR_MCP_METHOD = "mcp.method.name"
ATTR_MCP_SERVER = "steadyflow.mcp.server"


class McpTool(BaseTool):
    """A tool of an MCP server, called through its toolset's session.

    Attributes:
        mcp_tool: the server's listing of the tool (name, schema, annotations).
        server_name: the toolset's name for its server (in errors and traces).
    """

    def __init__(self, toolset: McpToolset, mcp_tool: Tool, *, name: str) -> None:
        super().__init__(name=name, description=mcp_tool.description or "")
        self.mcp_tool = mcp_tool
        self.server_name = toolset.name
        self._toolset = toolset
        self._validator = jsonschema.Draft202012Validator(mcp_tool.input_schema)

    @property
    def idempotent(self) -> bool:
        """True when the server marks the tool ``readOnlyHint`` or ``idempotentHint``.

        A durable resume may then run the call again instead of asking.
        """
        hints = self.mcp_tool.annotations
        return hints is not None and bool(hints.read_only_hint or hints.idempotent_hint)

    @property
    def is_idempotent(self) -> bool:  # type: ignore[override]
        """What a durable resume asks (``BaseTool.is_idempotent``): the server's hints."""
        return self.idempotent

    @property
    def destructive(self) -> bool:
        """Whether the tool may destroy, per the MCP spec's defaults for its annotations.

        ``readOnlyHint`` defaults to false and ``destructiveHint`` to true, so
        a tool is destructive unless it is read-only or says
        ``destructiveHint: false``; a tool without annotations is destructive.
        """
        hints = self.mcp_tool.annotations
        if hints is None:
            return True
        return not hints.read_only_hint and hints.destructive_hint is not False

    async def needs_confirmation(self, *, args: dict[str, Any], tool_context: ToolContext) -> bool:
        """The toolset's ``require_confirmation`` for this call."""
        rule = self._toolset.require_confirmation
        if isinstance(rule, bool):
            return rule
        if rule == "destructive":
            return self.destructive
        verdict = rule(self.mcp_tool, args, tool_context)
        if inspect.isawaitable(verdict):
            verdict = await verdict
        return bool(verdict)

    def declaration(self) -> FunctionDeclaration:
        """The tool's name, description and ``inputSchema``."""
        return FunctionDeclaration(
            name=self.name, description=self.description, parameters=self.mcp_tool.input_schema
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Validate ``args``, call the tool on the server, and shape its result."""
        # jsonschema's stubs leave its deprecated ``_schema`` overload untyped.
        errors = self._validator.iter_errors(args)  # pyright: ignore[reportUnknownMemberType]
        problems = sorted(errors, key=lambda e: list(e.path))
        if problems:
            listed = "; ".join(
                f"{'/'.join(map(str, p.path)) or '(arguments)'}: {p.message}" for p in problems
            )
            raise ToolArgumentsError(f"invalid arguments for tool {self.name!r}: {listed}")
        span = trace.get_current_span()  # the flow's execute_tool span for this call
        if span.is_recording():
            span.set_attribute(ATTR_MCP_METHOD, "tools/call")
            span.set_attribute(ATTR_MCP_SERVER, self.server_name)
        result = await self._toolset.call_tool(self.mcp_tool.name, args)
        return result_to_response(self.name, result)


def _block(block: Any) -> dict[str, Any]:
    if isinstance(block, TextContent):
        return {"type": "text", "text": block.text}
    if isinstance(block, ImageContent | AudioContent):
        return {"type": block.type, "mime_type": block.mime_type, "data": block.data}
    if isinstance(block, EmbeddedResource):
        contents = block.resource
        item: dict[str, Any] = {"type": "resource", "uri": str(contents.uri)}
        if contents.mime_type:
            item["mime_type"] = contents.mime_type
        if isinstance(contents, BlobResourceContents):
            item["blob"] = contents.blob
        else:
            item["text"] = contents.text
        return item
    if isinstance(block, ResourceLink):
        return {"type": "resource_link", "uri": str(block.uri), "name": block.name}
    return {"type": str(getattr(block, "type", "unknown"))}


def result_to_response(tool_name: str, result: CallToolResult) -> dict[str, Any]:
    """The function response for an MCP tool result (see the module docstring)."""
    blocks = [_block(b) for b in result.content]
    texts = [b["text"] for b in blocks if b["type"] == "text"]
    if result.is_error:
        message = "\n".join(texts) or f"MCP tool {tool_name!r} reported an error"
        raise ToolResponseError(message, {"error": message, "is_error": True})
    others = [b for b in blocks if b["type"] != "text"]
    if result.structured_content is not None:
        structured = result.structured_content
        response = dict(structured) if is_object(structured) else {"result": structured}
        if others:
            response["content"] = others
        return response
    if not others:
        return {"result": "\n".join(texts)}
    return {"content": blocks}
