"""Confirmation on the command line: asked in chat, answered later with ``steadyflow confirm``."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.cli.support import assert_one_line_error, invoke

REFUND_AGENT = """
import os
from pathlib import Path

from steadyflow import FunctionTool, LlmAgent
from steadyflow.testing import ScriptedLlm, call


def refund(order_id: str) -> dict:
    \"\"\"Refund an order.\"\"\"
    with Path(os.environ["REFUNDS"]).open("a") as out:
        out.write(order_id + "\\n")
    return {{"refunded": order_id}}


root_agent = LlmAgent(
    name="shop",
    model=ScriptedLlm({script}),
    tools=[FunctionTool(refund, require_confirmation=True)],
)
"""
ASKS = '[call("refund", {"order_id": "812"}), "Order 812 is refunded."]'
ANSWERS = '["Order 812 is refunded."]'


@pytest.fixture
def refunds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "refunds.txt"
    monkeypatch.setenv("REFUNDS", str(path))
    return path


@pytest.fixture
def refund_agent(tmp_path: Path):
    def write(script: str, name: str) -> str:
        path = tmp_path / name
        path.write_text(textwrap.dedent(REFUND_AGENT.format(script=script)), encoding="utf-8")
        return str(path)

    return write


def refunded(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


def answer_lines(stdout: str) -> list[list[str]]:
    """The command lines the output says to run, as argument lists."""
    return [
        shlex.split(line.split("#")[0])
        for line in stdout.splitlines()
        if line.strip().startswith("steadyflow confirm")
    ]


def test_a_query_that_needs_a_person_prints_the_request_and_the_commands(
    cli, db, refund_agent, refunds
) -> None:
    agent = refund_agent(ASKS, "agent.py")
    result = invoke(cli, "run", agent, "Refund order 812", "--session-db", db)
    assert result.exit_code == 0, result.stderr
    assert "steadyflow_request_confirmation" not in result.stdout
    assert "confirm: refund(order_id='812')" in result.stdout
    assert "Allow this call of tool 'refund' with the arguments shown?" in result.stdout
    assert "1 tool call · 15 in / 1 out tokens" in result.stdout
    assert "waiting for a person (after" in result.stdout
    allow, decline = answer_lines(result.stdout)
    assert allow[:3] == ["steadyflow", "confirm", agent]
    assert allow[4:] == ["--session-db", db]
    assert decline == [*allow, "--decline"]
    assert refunded(refunds) == []


def test_the_printed_confirm_command_runs_the_tool_and_finishes_the_turn(
    cli, db, refund_agent, refunds
) -> None:
    asked = invoke(cli, "run", refund_agent(ASKS, "agent.py"), "Refund 812", "--session-db", db)
    allow, _ = answer_lines(asked.stdout)
    allow[2] = refund_agent(ANSWERS, "answers.py")  # a new process: the model's script goes on
    result = invoke(cli, *allow[1:])
    assert result.exit_code == 0, result.stderr
    assert "← refund {'refunded': '812'}" in result.stdout
    assert "shop: Order 812 is refunded." in result.stdout
    assert "2 steps · 2 attempts" in result.stdout and "ok in" in result.stdout
    assert refunded(refunds) == ["812"]
    shown = invoke(cli, "invocations", allow[3], "--json", "--session-db", db)
    (record,) = json.loads(shown.stdout)
    assert record["status"] == "completed"
    timeline = invoke(cli, "trace", allow[3], "--session-db", db).stdout
    assert "asked a person to confirm" in timeline
    (person,) = [line for line in timeline.splitlines() if line.startswith("  person")]
    assert "a person answered after" in person
    (summary,) = [line for line in timeline.splitlines() if line.startswith("2 steps")]
    assert "a person took" in summary


def test_confirm_decline_never_runs_the_tool_and_the_model_reads_why(
    cli, db, refund_agent, refunds
) -> None:
    asked = invoke(cli, "run", refund_agent(ASKS, "agent.py"), "Refund 812", "--session-db", db)
    _, decline = answer_lines(asked.stdout)
    decline[2] = refund_agent('["I did not refund order 812."]', "answers.py")
    result = invoke(cli, *decline[1:])
    assert result.exit_code == 0, result.stderr
    assert "'declined': True" in result.stdout
    assert "shop: I did not refund order 812." in result.stdout
    assert refunded(refunds) == []


def test_confirm_without_a_waiting_request_is_one_line(cli, db, agent_file) -> None:
    done = invoke(cli, "run", agent_file(), "Where is order 812?", "--session-db", db)
    session_id = done.stdout.rsplit("session ", 1)[1].split()[0]
    result = invoke(cli, "confirm", agent_file(), session_id, "--session-db", db)
    assert_one_line_error(result, f"session {session_id} has no confirmation waiting")


def chat(agent: str, db: str, typed: str, refunds: Path) -> subprocess.CompletedProcess[str]:
    """``steadyflow run AGENT`` in chat mode, in a real process, with ``typed`` on stdin."""
    env = {**os.environ, "REFUNDS": str(refunds), "NO_COLOR": "1"}
    command = [sys.executable, "-m", "steadyflow", "run", agent, "--session-db", db]
    return subprocess.run(
        command, input=typed, capture_output=True, text=True, env=env, timeout=60, check=False
    )


def test_chat_asks_the_person_and_runs_the_tool_on_yes(db, refund_agent, refunds) -> None:
    result = chat(refund_agent(ASKS, "agent.py"), db, "Refund order 812\ny\nexit\n", refunds)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "confirm: refund(order_id='812')" in out
    assert "Allow this call of tool 'refund'" in out and "allow? [y/N]" in out
    assert "allowed" in out
    assert out.index("allowed") < out.index("← refund {'refunded': '812'}")
    assert "shop: Order 812 is refunded." in out
    assert refunded(refunds) == ["812"]


def test_chat_declines_on_anything_but_yes(db, refund_agent, refunds) -> None:
    script = '[call("refund", {"order_id": "812"}), "Not refunded."]'
    result = chat(refund_agent(script, "agent.py"), db, "Refund order 812\n\nexit\n", refunds)
    assert result.returncode == 0, result.stderr
    assert "declined" in result.stdout and "shop: Not refunded." in result.stdout
    assert refunded(refunds) == []


def test_chat_left_at_the_question_says_how_to_answer_later(db, refund_agent, refunds) -> None:
    agent = refund_agent(ASKS, "agent.py")
    result = chat(agent, db, "Refund order 812\n", refunds)
    assert result.returncode == 0, result.stderr
    assert "allow? [y/N]" in result.stdout
    (allow, decline) = answer_lines(result.stdout)
    assert allow[2] == agent and decline[-1] == "--decline"
    assert refunded(refunds) == []
