"""``steadyflow worker``: its refusals are one line naming what is wrong."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tests.cli.support import assert_one_line_error, invoke
from tests.support.servers import free_port

AGENT = """
from steadyflow import LlmAgent
from steadyflow.testing import ScriptedLlm

root_agent = LlmAgent(name="helper", model=ScriptedLlm(["hi"]))
"""


def agent_file(tmp_path: Path) -> str:
    path = tmp_path / "agent.py"
    path.write_text(AGENT)
    return str(path)


def test_a_worker_without_a_temporal_address_is_refused(cli: CliRunner, tmp_path: Path) -> None:
    result = invoke(cli, "worker", agent_file(tmp_path), env={"STEADYFLOW_TEMPORAL_ADDRESS": ""})
    assert_one_line_error(result, "--temporal-address")


def test_an_unreachable_temporal_server_is_one_line(cli: CliRunner, tmp_path: Path) -> None:
    address = f"127.0.0.1:{free_port()}"
    db = f"sqlite:///{tmp_path / 'sessions.db'}"
    result = invoke(
        cli, "worker", agent_file(tmp_path), "--temporal-address", address, "--session-db", db
    )
    assert_one_line_error(result, "cannot reach Temporal", address)


def test_a_bad_heartbeat_timeout_names_the_setting(cli: CliRunner, tmp_path: Path) -> None:
    result = invoke(
        cli,
        "worker",
        agent_file(tmp_path),
        "--temporal-address",
        "127.0.0.1:1",
        "--heartbeat-timeout",
        "0",
    )
    assert_one_line_error(result, "heartbeat_timeout")
