"""A real MCP server for the tests, on the SDK's server side (MCPServer, once FastMCP).

Run as ``python server.py stdio`` or ``python server.py streamable-http PORT``
or ``python server.py sse PORT``. When ``MCP_TEST_LOG`` names a file, the
server appends one line per event the tests look for (a call cancelled).
"""

import asyncio
import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

server = MCPServer("test-tools")


def _log(line: str) -> None:
    path = os.environ.get("MCP_TEST_LOG")
    if path:
        with open(path, "a") as out:
            out.write(line + "\n")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool(name="get-weather", annotations=ToolAnnotations(idempotent_hint=True))
def get_weather(city: str) -> dict[str, str]:
    """The weather in a city."""
    return {"city": city, "sky": "clear"}


@server.tool(annotations=ToolAnnotations(destructive_hint=True))
def delete_everything() -> str:
    """Delete it all (it does nothing)."""
    return "deleted"


@server.tool(annotations=ToolAnnotations(destructive_hint=False))
def add_note(text: str) -> str:
    """Add a note (additive: it never destroys)."""
    return f"noted: {text}"


@server.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@server.tool()
def refuse(reason: str) -> str:
    """Always fails with the reason."""
    raise ToolError(f"refused: {reason}")


@server.tool()
def crash() -> str:
    """The server process dies mid-call."""
    os._exit(3)


@server.tool()
async def slow(seconds: float) -> str:
    """Sleep, then answer; logs a cancellation."""
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        _log("slow cancelled")
        raise
    return "done"


@server.tool()
def blob(size: int) -> str:
    """A text of ``size`` bytes."""
    return "x" * size


@server.tool()
async def grow(ctx: Context) -> str:
    """Add the tool ``extra`` and tell the client the list changed."""

    def extra() -> str:
        """A tool that appeared later."""
        return "extra!"

    server.add_tool(extra)
    await ctx.session.send_tool_list_changed()
    return "grown"


if __name__ == "__main__":
    transport = sys.argv[1]
    if transport == "stdio":
        server.run("stdio")
    else:
        port = int(sys.argv[2])
        if transport == "sse":
            server.run("sse", host="127.0.0.1", port=port)
        else:
            server.run("streamable-http", host="127.0.0.1", port=port)
