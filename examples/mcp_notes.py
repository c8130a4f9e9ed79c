"""An agent whose tools live behind an MCP server over stdio.

The same file is both sides: ``python examples/mcp_notes.py --serve`` is a
small notes server written with the ``mcp`` SDK (``MCPServer``), and the
agent starts it as a subprocess through ``McpToolset(command=[...])``. The
toolset lists the server's tools at each step, calls them over the session,
and ``runner.close()`` stops the server.

Run it with ``python examples/mcp_notes.py``: the provider emulator serves
the OpenAI wire format on loopback and a small rule-based responder plays the
model (add a note, list the notes, answer), so no key and no network are
needed. Needs ``pip install 'steadyflow[mcp]'``.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from steadyflow import LlmAgent, Runner
from steadyflow.testing.emulator import EmulatedRequest, ProviderEmulator, ScriptItem, ToolCall
from steadyflow.trace_record import InvocationTrace

QUESTION = "Remember to buy milk, then tell me my notes."


def serve() -> None:
    """The MCP server side: two tools over stdio, notes kept in memory."""
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    server = MCPServer("notes")
    notes: list[str] = ["water the plants"]

    @server.tool()
    def add_note(text: str) -> dict[str, Any]:
        """Add a note."""
        notes.append(text)
        return {"added": text, "count": len(notes)}

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def list_notes() -> dict[str, Any]:
        """All notes, oldest first."""
        return {"notes": list(notes)}

    server.run("stdio")


def build_agent(model: Any) -> LlmAgent:
    """The notes agent, its tools from the MCP server this file serves."""
    from steadyflow.tools.mcp import McpToolset

    notes_server = McpToolset(command=[sys.executable, __file__, "--serve"], name="notes")
    return LlmAgent(
        name="notes",
        model=model,
        instruction="Keep the user's notes with your tools, then answer in one sentence.",
        tools=[notes_server],
    )


def respond(request: EmulatedRequest) -> ScriptItem:
    """The model, by rule: add the note, list the notes, answer from the list."""
    last = request.last
    if last is None or not last.results:
        return ToolCall("add_note", {"text": "buy milk"})
    result = last.results[-1]
    if result.name == "add_note":
        return ToolCall("list_notes")
    return "Your notes: " + "; ".join(result.response["notes"]) + "."


async def run(emulator: ProviderEmulator) -> InvocationTrace:
    """One turn against ``emulator``; prints the events and returns the stored trace."""
    from steadyflow.models.openai import OpenAI

    model = OpenAI("gpt-4o-mini", api_key="example", base_url=emulator.openai_base_url)
    runner = Runner(app_name="mcp_notes", agent=build_agent(model), session_service="memory://")
    try:
        session = await runner.create_session(user_id="me")
        print(f"user: {QUESTION}")
        async for event in runner.run_async(
            user_id="me", session_id=session.id, new_message=QUESTION
        ):
            for fc in event.get_function_calls():
                print(f"[{event.author}] calls {fc.name}({fc.args})")
            for fr in event.get_function_responses():
                print(f"[{event.author}] {fr.name} -> {fr.response}")
            if event.text:
                print(f"[{event.author}] {event.text}")
        records = await runner.session_service.list_invocations(
            app_name="mcp_notes", user_id="me", session_id=session.id
        )
    finally:
        await runner.close()  # stops the MCP server
    trace = records[-1].trace
    assert trace is not None
    return trace


async def main() -> None:
    """Start the emulator, run one turn, stop the emulator."""
    async with ProviderEmulator(responder=respond) as emulator:
        await run(emulator)


if __name__ == "__main__":
    if "--serve" in sys.argv:
        serve()
    else:
        asyncio.run(main())
