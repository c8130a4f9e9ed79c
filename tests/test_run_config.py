import logging

import pytest

from steadyflow import RetryConfig, RunConfig, StreamingMode


def test_defaults_match_the_design():
    config = RunConfig()
    assert config.max_llm_calls == 500
    assert config.streaming_mode is StreamingMode.NONE
    assert config.retry_config == RetryConfig.disabled()


def test_non_positive_budget_logs_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="steadyflow.run_config"):
        RunConfig(max_llm_calls=0)
    assert "turns the call budget (attempts) off" in caplog.text


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"max_llm_calls": "10"}, "max_llm_calls"),
        ({"streaming_mode": "sse"}, "streaming_mode"),
        ({"retry_config": {"max_attempts": 3}}, "retry_config"),
    ],
)
def test_bad_values_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        RunConfig(**kwargs)
