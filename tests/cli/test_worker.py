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


def test_the_worker_runs_turns_with_the_files_run_config(
    cli: CliRunner, tmp_path: Path, monkeypatch
) -> None:
    from steadyflow import RetryConfig, RunConfig
    from steadyflow.durable import temporal

    given: list[RunConfig] = []

    class Worker:
        async def run(self) -> None:
            return None

        async def shutdown(self) -> None:
            return None

    async def connect(address: str, namespace: str) -> object:
        return object()

    def create_worker(client: object, **options: object) -> Worker:
        run_config = options["run_config"]
        assert isinstance(run_config, RunConfig)
        given.append(run_config)
        return Worker()

    monkeypatch.setattr(temporal, "connect", connect)
    monkeypatch.setattr(temporal, "create_worker", create_worker)
    path = tmp_path / "agent.py"
    path.write_text(
        AGENT
        + "from steadyflow import RetryConfig, RunConfig\n"
        + "run_config = RunConfig(max_llm_calls=7, retry_config=RetryConfig(max_attempts=4))\n"
    )
    db = f"sqlite:///{tmp_path / 'sessions.db'}"
    args = ["worker", str(path), "--temporal-address", "127.0.0.1:1", "--session-db", db]
    result = invoke(cli, *args, "--retry-attempts", "2")
    assert result.exit_code == 0, result.stderr
    (config,) = given
    assert config.max_llm_calls == 7
    assert config.retry_config == RetryConfig(max_attempts=2)
