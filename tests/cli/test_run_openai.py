"""``steadyflow run`` on the order-support example through the OpenAI SDK and the emulator."""

from pathlib import Path

from steadyflow.testing.emulator import ProviderEmulator
from tests.cli.support import invoke

EXAMPLE = str(Path(__file__).parents[2] / "examples" / "order_support.py")


def test_the_example_answers_through_openai_base_url(cli, db) -> None:
    emulator = ProviderEmulator()
    with emulator.running_in_thread():
        env = {"OPENAI_BASE_URL": emulator.openai_base_url, "OPENAI_API_KEY": "test-key"}
        result = invoke(
            cli,
            "run",
            EXAMPLE,
            "Where is order 812?",
            "--model",
            "openai/gpt-4o-mini",
            "--session-db",
            db,
            env=env,
        )
        requests = emulator.attempts("openai")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "→ lookup_order(order_id='812')" in result.stdout
    assert "order_support: Order 812 - status: shipped, carrier: DHL" in result.stdout
    assert requests == 2


def test_a_missing_api_key_is_one_line_exit_2(cli, db) -> None:
    env = {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    result = invoke(cli, "run", EXAMPLE, "Where is order 812?", "--session-db", db, env=env)
    assert result.exit_code == 2
    assert "has no API key: set OPENAI_API_KEY" in result.stderr
