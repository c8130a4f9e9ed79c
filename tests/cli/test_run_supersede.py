"""`steadyflow run`: a new line while a confirmation waits supersedes it (on the emulator)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from tests.cli.support import invoke, session_ids

REFUND_AGENT = """
from steadyflow import FunctionTool, LlmAgent


def refund_order(order_id: str) -> dict:
    \"\"\"Refund an order.

    Args:
        order_id: the order number.
    \"\"\"
    return {"order_id": order_id, "refunded": True}


root_agent = LlmAgent(
    name="support",
    model="gpt-4o-mini",
    instruction="Help with refunds.",
    tools=[FunctionTool(refund_order, require_confirmation=True)],
)
"""
NO_KEYS = {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None}


def test_never_mind_after_a_refund_request_supersedes_it(cli, db, tmp_path: Path) -> None:
    agent = tmp_path / "refund_agent.py"
    agent.write_text(textwrap.dedent(REFUND_AGENT), encoding="utf-8")
    stdin = "Please refund order 977\nnever mind\n"

    result = invoke(
        cli, "run", str(agent), "--emulator", "--session-db", db, input=stdin, env=NO_KEYS
    )

    assert result.exit_code == 0, result.stdout + result.stderr
    assert "→ refund_order(order_id='977')" in result.stdout
    assert "← refund_order" not in result.stdout  # the refund never ran
    assert "support: I can help with your orders." in result.stdout  # the second turn's answer
    assert "Error" not in result.stdout + result.stderr
    (session_id,) = session_ids(cli, db)
    listed = invoke(cli, "invocations", session_id, "--session-db", db, "--json")
    assert [r["status"] for r in json.loads(listed.stdout)] == ["superseded", "completed"]
