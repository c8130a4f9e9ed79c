"""The CLI shows MCP tools like function tools: in ``dump-request`` and in ``trace``."""

import json
import sys
import textwrap
from pathlib import Path

import pytest

from tests.cli.support import invoke, session_ids

pytestmark = pytest.mark.slow  # a real MCP server in a subprocess

SERVER = Path(__file__).resolve().parents[1] / "tools" / "mcp" / "server.py"

AGENT = '''
from steadyflow import LlmAgent
from steadyflow.testing import ScriptedLlm, call
from steadyflow.tools.mcp import McpToolset


def lookup_order(order_id: str) -> dict:
    """Look up an order."""
    return {"order_id": order_id, "status": "shipped"}


mcp = McpToolset(command=[PYTHON, SERVER, "stdio"], tool_filter=["add"], name="test-server")
batch = [call("add", {"a": 2, "b": 3}), call("lookup_order", {"order_id": "1"})]
root_agent = LlmAgent(name="shop", model=ScriptedLlm([batch, "5"]), tools=[lookup_order, mcp])
'''


def test_dump_request_and_trace_show_mcp_tools_like_function_tools(cli, db, tmp_path) -> None:
    path = tmp_path / "agent.py"
    source = AGENT.replace("PYTHON", repr(sys.executable)).replace("SERVER", repr(str(SERVER)))
    path.write_text(textwrap.dedent(source))
    ran = invoke(cli, "run", str(path), "add 2 and 3", "--session-db", db)
    assert ran.exit_code == 0, ran.stderr
    (session_id,) = session_ids(cli, db)

    dumped = invoke(cli, "dump-request", str(path), "--session", session_id, "--session-db", db)
    assert dumped.exit_code == 0, dumped.stderr
    request = json.loads(dumped.stdout)
    assert [t["name"] for t in request["config"]["tools"]] == ["lookup_order", "add"]
    responses = [
        part["function_response"]["response"]
        for content in request["contents"]
        for part in content["parts"]
        if part.get("function_response") is not None
    ]
    assert responses == [{"result": 5}, {"order_id": "1", "status": "shipped"}]

    traced = invoke(cli, "trace", session_id, "--session-db", db)
    assert traced.exit_code == 0, traced.stderr
    assert "tool add (test-server)" in traced.stdout
    assert "tool lookup_order" in traced.stdout and "lookup_order (" not in traced.stdout
