"""``run --emulator`` and ``serve --emulator``: one's own agent on the emulator, in one line."""

import os
from pathlib import Path
from typing import Any

import pytest

import steadyflow.server
from steadyflow.testing.emulator import ProviderEmulator
from tests.cli.support import assert_one_line_error, invoke

EXAMPLE = str(Path(__file__).parents[2] / "examples" / "order_support.py")
NO_KEYS = {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None}


def test_run_answers_through_the_sdk_and_the_emulator_with_no_key(cli, db) -> None:
    args = ["run", EXAMPLE, "Where is order 977?", "--emulator", "--session-db", db]
    before = dict(os.environ)
    result = invoke(cli, *args, env=NO_KEYS)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "→ lookup_order(order_id='977')" in result.stdout
    assert "order_support: Order 977 - status: processing" in result.stdout
    assert "provider emulator on http://127.0.0.1:" in result.stderr
    assert dict(os.environ) == before  # the shell's variables are restored


def test_run_injects_the_emulator_faults_and_retries_through_them(cli, db, clock) -> None:
    args = ["run", EXAMPLE, "Where is order 812?", "--emulator", "--emulator-fault", "503@1"]
    result = invoke(cli, *args, "--session-db", db, env=NO_KEYS)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "503 ModelHTTPError" in result.stdout
    assert "3 attempts (1 retry," in result.stdout


def test_the_emulator_wins_over_a_real_base_url_in_the_shell(cli, db) -> None:
    real = ProviderEmulator()  # stands for the real provider: it must see nothing
    with real.running_in_thread():
        env = {"OPENAI_BASE_URL": real.openai_base_url, "OPENAI_API_KEY": "sk-real"}
        args = ["run", EXAMPLE, "Where is order 812?", "--emulator", "--session-db", db]
        result = invoke(cli, *args, env=env)
        assert result.exit_code == 0, result.stdout + result.stderr
        assert real.attempts() == 0


def test_an_emulator_fault_without_the_emulator_is_one_line_exit_2(cli, db) -> None:
    result = invoke(cli, "run", EXAMPLE, "q", "--emulator-fault", "503@1", "--session-db", db)
    assert_one_line_error(result, "--emulator-fault needs --emulator")


def test_a_bad_emulator_fault_is_one_line_exit_2(cli, db) -> None:
    result = invoke(cli, "run", EXAMPLE, "q", "--emulator", "--emulator-fault", "x@y")
    assert_one_line_error(result, "--emulator-fault", "bad fault spec")


def test_serve_points_the_agent_at_the_emulator(cli, db, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def fake_serve(agent: Any, **options: Any) -> None:
        seen["base_url"] = agent.canonical_model._base_url
        seen["env"] = os.environ.get("OPENAI_BASE_URL")

    monkeypatch.setattr(steadyflow.server, "serve", fake_serve)
    result = invoke(cli, "serve", EXAMPLE, "--emulator", "--session-db", db, env=NO_KEYS)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert seen["base_url"] == seen["env"]
    assert seen["base_url"].startswith("http://127.0.0.1:")
