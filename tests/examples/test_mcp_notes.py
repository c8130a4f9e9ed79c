"""The MCP example runs against the emulator, its tools served over stdio."""

import pytest
from examples.mcp_notes import QUESTION, respond, run

from steadyflow.testing.emulator import ProviderEmulator


@pytest.mark.slow
async def test_the_notes_agent_uses_the_mcp_servers_tools(capsys):
    async with ProviderEmulator(responder=respond) as emulator:
        trace = await run(emulator)

    assert trace.status == "ok"
    assert [[tool.name for tool in step.tools] for step in trace.steps] == [
        ["add_note"],
        ["list_notes"],
        [],
    ]
    first = emulator.requests[0]
    assert first.last_user_text == QUESTION
    assert sorted(tool.name for tool in first.tools) == ["add_note", "list_notes"]
    printed = capsys.readouterr().out
    assert "[notes] Your notes: water the plants; buy milk." in printed
