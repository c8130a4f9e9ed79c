"""``steadyflow serve``: flags become the server's limits; bad values are one-line errors."""

from __future__ import annotations

from typing import Any

import pytest

import steadyflow.server
from steadyflow import RetryConfig
from steadyflow.server import Access, ServerLimits
from tests.cli.support import assert_one_line_error, invoke


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Records what ``serve`` was asked to run instead of starting uvicorn."""
    calls: list[dict[str, Any]] = []

    def fake_serve(agent: Any, **options: Any) -> None:
        calls.append({"agent": agent, **options})

    monkeypatch.setattr(steadyflow.server, "serve", fake_serve)
    return calls


def test_serve_has_help(cli) -> None:
    result = invoke(cli, "serve", "--help")
    assert result.exit_code == 0
    assert "--auth-token" in result.stdout and "--max-llm-calls-limit" in result.stdout


def test_the_flags_become_the_servers_settings(cli, agent_file, db, served) -> None:
    path = agent_file()
    args = ["serve", path, "--port", "0", "--session-db", db, "--max-llm-calls-limit", "40"]
    args += ["--max-llm-calls", "10", "--retry-attempts-limit", "4", "--retry-attempts", "2"]
    result = invoke(cli, *args, env={"STEADYFLOW_AUTH_TOKEN": "tok-123"})
    assert result.exit_code == 0, result.stderr
    [call] = served
    assert call["agent"].name == "shop"
    assert (call["session_url"], call["host"], call["port"]) == (db, "127.0.0.1", 0)
    assert call["auth_token"] == "tok-123"
    assert call["limits"] == ServerLimits(
        max_llm_calls=40,
        default_max_llm_calls=10,
        max_retry_attempts=4,
        retry_config=RetryConfig(max_attempts=2),
    )
    assert "tok-123" not in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("flags", "fragment"),
    [
        (
            ["--max-llm-calls", "500"],
            "--max-llm-calls (500) must be <= --max-llm-calls-limit (100)",
        ),
        (["--retry-attempts", "9"], "--retry-attempts (9) must be <= --retry-attempts-limit (5)"),
        (["--retry-attempts", "0"], "--retry-attempts must be >= 1"),
        (["--max-llm-calls-limit", "0"], "--max-llm-calls-limit must be an int >= 1"),
        (["--auth-token", " "], "--auth-token (or STEADYFLOW_AUTH_TOKEN) is empty"),
    ],
)
def test_bad_settings_are_one_line_errors_naming_the_flag(
    cli, agent_file, served, flags: list[str], fragment: str
) -> None:
    assert_one_line_error(invoke(cli, "serve", agent_file(), *flags), fragment)
    assert served == []


def test_a_missing_agent_file_is_a_one_line_error(cli, served) -> None:
    assert_one_line_error(invoke(cli, "serve", "nope.py"), "agent file 'nope.py' not found")


def test_access_flags_reach_the_server(cli, agent_file, db, served) -> None:
    args = ["serve", agent_file(), "--session-db", db, "--allowed-host", "agents.internal"]
    args += ["--allowed-host", "10.0.0.5", "--allowed-origin", "https://console.example"]
    args += ["--allow-shared-state"]
    result = invoke(cli, *args, env={"STEADYFLOW_OPERATOR_TOKEN": "op-456"})
    assert result.exit_code == 0, result.stderr
    [call] = served
    assert call["access"] == Access(
        allowed_hosts=("agents.internal", "10.0.0.5"),
        allowed_origins=("https://console.example",),
        operator_token="op-456",
        allow_shared_state=True,
    )
    assert "op-456" not in result.stdout + result.stderr


def test_an_operator_token_equal_to_the_auth_token_is_one_line_error(cli, agent_file, db) -> None:
    env = {"STEADYFLOW_OPERATOR_TOKEN": "same", "STEADYFLOW_AUTH_TOKEN": "same"}
    result = invoke(cli, "serve", agent_file(), "--session-db", db, env=env)
    assert_one_line_error(result, "--operator-token must differ from --auth-token")
