"""Claude 4.6 and later think with ``{"type": "adaptive"}`` and an effort; older Claude, a budget.

Anthropic deprecated ``{"type": "enabled", "budget_tokens"}`` on Opus and
Sonnet 4.6, and Opus 4.7 and later answer it with a 400.
"""

from __future__ import annotations

import pytest

from steadyflow.models import LlmRequest
from steadyflow.models._anthropic_wire import (
    DEFAULT_MAX_TOKENS,
    EFFORT_BUDGETS,
    build_params,
    takes_adaptive_thinking,
)
from steadyflow.types import GenerateContentConfig, ThinkingConfig


def params_for(model: str, **config: object) -> dict[str, object]:
    return build_params(LlmRequest(contents=[], config=GenerateContentConfig(**config)), model)


@pytest.mark.parametrize(
    ("model", "adaptive"),
    [
        ("claude-opus-4-6", True),
        ("claude-sonnet-4-6-20260217", True),
        ("anthropic.claude-opus-4-6-v1", True),
        ("claude-opus-4-7", True),
        ("claude-mythos-preview", True),
        ("claude-sonnet-5", True),
        ("claude-sonnet-4-5", False),
        ("claude-haiku-4-5", False),
        ("claude-opus-4-1-20250805", False),
        ("claude-opus-4-20250514", False),  # Opus 4 with its date, not "4.20"
        ("claude-3-7-sonnet-latest", False),
    ],
)
def test_which_models_take_adaptive_thinking(model: str, adaptive: bool) -> None:
    assert takes_adaptive_thinking(model) is adaptive


def test_a_new_model_gets_adaptive_thinking_with_the_effort_given() -> None:
    params = params_for("claude-opus-4-7", thinking=ThinkingConfig(effort="medium"))
    assert params["thinking"] == {"type": "adaptive"}
    assert params["output_config"] == {"effort": "medium"}


@pytest.mark.parametrize(
    ("budget", "effort"), [(1024, "low"), (4096, "low"), (8000, "medium"), (20000, "high")]
)
def test_a_budget_alone_becomes_an_effort_for_a_new_model(budget: int, effort: str) -> None:
    params = params_for("claude-sonnet-4-6", thinking=ThinkingConfig(budget_tokens=budget))
    assert params["thinking"] == {"type": "adaptive"}
    assert params["output_config"] == {"effort": effort}


def test_minimal_effort_is_the_lowest_anthropic_takes() -> None:
    params = params_for("claude-opus-4-6", thinking=ThinkingConfig(effort="minimal"))
    assert params["output_config"] == {"effort": "low"}


def test_the_effort_and_a_response_schema_share_output_config() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    params = params_for(
        "claude-opus-4-7", thinking=ThinkingConfig(effort="high"), response_schema=schema
    )
    assert params["output_config"] == {
        "effort": "high",
        "format": {"type": "json_schema", "schema": schema},
    }


def test_an_older_model_keeps_the_budget_form() -> None:
    params = params_for("claude-sonnet-4-5", thinking=ThinkingConfig(effort="medium"))
    assert params["thinking"] == {"type": "enabled", "budget_tokens": 8192}
    assert "output_config" not in params


def test_thinking_off_sends_neither_form() -> None:
    params = params_for("claude-opus-4-7", thinking=ThinkingConfig(budget_tokens=0))
    assert "thinking" not in params and "output_config" not in params


def test_the_budget_forms_limits_do_not_apply_when_no_budget_is_sent() -> None:
    high = params_for(
        "claude-opus-4-7", thinking=ThinkingConfig(effort="high"), max_output_tokens=8000
    )
    assert (high["max_tokens"], high["output_config"]) == (8000, {"effort": "high"})
    small = params_for("claude-opus-4-7", thinking=ThinkingConfig(budget_tokens=500))
    assert small["output_config"] == {"effort": "low"}


def test_without_max_output_tokens_the_answer_keeps_room_after_the_effort() -> None:
    params = params_for("claude-opus-4-7", thinking=ThinkingConfig(effort="medium"))
    assert params["max_tokens"] == DEFAULT_MAX_TOKENS + EFFORT_BUDGETS["medium"]
