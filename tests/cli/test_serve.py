"""``steadyflow serve``: flags become the server's limits; bad values are one-line errors."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

import steadyflow.server
from steadyflow import RetryConfig
from steadyflow.server import Access, ServerLimits
from steadyflow.usage import UsageLimits
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
        (["--retry-attempts", "0"], "--retry-attempts': Input should be greater than"),
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
    args += ["--allow-shared-state", "--auth-token", "user-123"]
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


SETTINGS_AGENT = """
from decimal import Decimal

from steadyflow import LlmAgent, RetryConfig, RunConfig
from steadyflow.testing import ScriptedLlm
from steadyflow.usage import ModelPrice, SpendLimit, UsageLimits

root_agent = LlmAgent(name="shop", model=ScriptedLlm(["hi"]))
run_config = RunConfig(
    max_llm_calls=12,
    retry_config=RetryConfig(max_attempts=4, initial_backoff=0.1),
    usage_limits=UsageLimits(max_total_tokens=5000, max_cost=Decimal("0.20")),
    spend_limits=[SpendLimit(scope="user", max_cost=Decimal("5"))],
    prices={"scripted-model": ModelPrice(input=1, output=2)},
)
"""


def settings_agent(tmp_path) -> str:
    path = tmp_path / "settings_agent.py"
    path.write_text(SETTINGS_AGENT, encoding="utf-8")
    return str(path)


def test_the_agent_files_run_config_gives_the_turns_their_defaults(
    cli, tmp_path, db, served
) -> None:
    args = ["serve", settings_agent(tmp_path), "--session-db", db, "--retry-attempts", "2"]
    args += ["--max-cost-per-invocation", "0.5", "--max-tokens-per-invocation", "8000"]
    result = invoke(cli, *args)
    assert result.exit_code == 0, result.stderr
    limits: ServerLimits = served[0]["limits"]
    assert limits.default_max_llm_calls == 12
    assert limits.retry_config == RetryConfig(max_attempts=2, initial_backoff=0.1)
    assert limits.max_usage == UsageLimits(max_total_tokens=8000, max_cost=Decimal("0.5"))
    assert limits.default_usage == UsageLimits(max_total_tokens=5000, max_cost=Decimal("0.20"))
    assert [limit.scope for limit in limits.spend_limits] == ["user"]
    assert limits.prices is not None and "scripted-model" in limits.prices


@pytest.mark.parametrize(
    ("flags", "fragment"),
    [
        (["--max-cost-per-invocation", "lots"], "--max-cost-per-invocation is not a number"),
        (
            ["--max-cost-per-invocation", "0.1"],
            "run_config.usage_limits.max_cost (0.20) must be <= --max-cost-per-invocation (0.1)",
        ),
    ],
)
def test_bad_ceilings_are_one_line_errors_naming_the_flag(
    cli, tmp_path, served, flags: list[str], fragment: str
) -> None:
    result = invoke(cli, "serve", settings_agent(tmp_path), *flags)
    assert_one_line_error(result, fragment)
    assert served == []


def test_an_operator_token_without_an_auth_token_is_refused_unless_asked_for(
    cli, agent_file, db, served
) -> None:
    env = {"STEADYFLOW_OPERATOR_TOKEN": "op-456", "STEADYFLOW_AUTH_TOKEN": None}
    refused = invoke(cli, "serve", agent_file(), "--session-db", db, env=env)
    assert_one_line_error(refused, "--operator-token without --auth-token", "--open-routes")
    assert served == []
    allowed = invoke(cli, "serve", agent_file(), "--session-db", db, "--open-routes", env=env)
    assert allowed.exit_code == 0, allowed.stderr
    assert served[0]["access"].operator_token == "op-456" and served[0]["auth_token"] is None
