"""The run settings of ``run``: the agent file's ``run_config``, overridden flag by flag."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from tests.cli.support import assert_one_line_error, invoke, session_ids

SETTINGS_AGENT = """
from steadyflow import LlmAgent, RunConfig
from steadyflow.testing import ScriptedLlm, call
from steadyflow.types import GenerateContentConfig
from steadyflow.usage import UsageLimits


def lookup_order(order_id: str) -> dict:
    \"\"\"Look up an order.\"\"\"
    return {{"order_id": order_id, "status": "shipped"}}


root_agent = LlmAgent(
    name="shop",
    model=ScriptedLlm([call("lookup_order", {{"order_id": "812"}}), "Order 812 has shipped."]),
    tools=[lookup_order],
    generate_content_config=GenerateContentConfig(max_output_tokens=100),
)
run_config = {settings}
"""


def settings_file(tmp_path: Path, settings: str) -> str:
    path = tmp_path / "settings_agent.py"
    path.write_text(textwrap.dedent(SETTINGS_AGENT.format(settings=settings)), encoding="utf-8")
    return str(path)


def stored_record(cli, db: str) -> dict:
    (session_id,) = session_ids(cli, db)
    shown = invoke(cli, "invocations", session_id, "--json", "--session-db", db)
    (record,) = json.loads(shown.stdout)
    return record


def test_the_agent_files_run_config_sets_the_budget(cli, db, tmp_path) -> None:
    agent = settings_file(tmp_path, "RunConfig(max_llm_calls=1)")
    result = invoke(cli, "run", agent, "Where is order 812?", "--session-db", db)
    assert result.exit_code == 1
    assert "budget 1/1 attempts" in result.stdout
    assert "LlmCallsLimitExceededError" in result.stderr
    assert stored_record(cli, db)["max_llm_calls"] == 1


def test_a_flag_overrides_its_field_of_the_files_run_config(cli, db, tmp_path) -> None:
    agent = settings_file(tmp_path, "RunConfig(max_llm_calls=1)")
    args = ["run", agent, "Where is order 812?", "--max-llm-calls", "4", "--session-db", db]
    result = invoke(cli, *args)
    assert result.exit_code == 0, result.stderr
    assert "shop: Order 812 has shipped." in result.stdout
    assert "budget 2/4 attempts" in result.stdout


def test_usage_flags_add_to_the_files_usage_limits(cli, db, tmp_path) -> None:
    agent = settings_file(tmp_path, "RunConfig(usage_limits=UsageLimits(max_input_tokens=10_000))")
    args = ["run", agent, "Where is order 812?", "--max-total-tokens", "20", "--session-db", db]
    result = invoke(cli, *args)
    assert result.exit_code == 1
    refused = "UsageLimitExceededError: max_total_tokens (20 tokens) would be exceeded"
    assert refused in result.stderr
    record = stored_record(cli, db)
    assert record["usage"]["limits"] == {"max_input_tokens": 10_000, "max_total_tokens": 20}
    assert record["llm_calls"] == 0  # refused before the attempt was sent


def test_without_a_run_config_the_commands_defaults_apply(cli, db, agent_file) -> None:
    result = invoke(cli, "run", agent_file(), "Where is order 812?", "--session-db", db)
    assert result.exit_code == 0, result.stderr
    assert "budget 2/500 attempts" in result.stdout


def test_a_bad_max_cost_names_the_field(cli, db, agent_file) -> None:
    result = invoke(cli, "run", agent_file(), "q", "--max-cost", "lots", "--session-db", db)
    assert_one_line_error(result, "--max-cost is not a number: 'lots'")
    assert session_ids(cli, db) == []


def test_a_run_config_that_is_no_run_config_is_one_line(cli, db, tmp_path) -> None:
    agent = settings_file(tmp_path, "{'max_llm_calls': 3}")
    result = invoke(cli, "run", agent, "q", "--session-db", db)
    assert_one_line_error(result, "run_config is a dict, not a RunConfig")


def test_tool_call_flags_limit_the_turns_tool_calls(cli, db, tmp_path) -> None:
    agent = settings_file(tmp_path, "None")
    args = ["run", agent, "Where is order 812?", "--max-calls-per-tool", "lookup_order=0"]
    result = invoke(cli, *args, "--max-tool-calls", "5", "--session-db", db)
    assert result.exit_code == 0, result.stderr
    assert "← lookup_order {'error':" in result.stdout  # refused: the tool never ran
    assert "'status': 'shipped'" not in result.stdout
    limits = stored_record(cli, db)["usage"]["limits"]
    assert limits == {"max_tool_calls": 5, "max_calls_per_tool": {"lookup_order": 0}}


def test_a_bad_max_calls_per_tool_names_the_flag(cli, db, agent_file) -> None:
    args = ["run", agent_file(), "q", "--max-calls-per-tool", "lookup_order", "--session-db", db]
    result = invoke(cli, *args)
    assert result.exit_code == 2
    assert "--max-calls-per-tool takes TOOL=N" in result.stderr
