"""``ServerLimits`` and ``create_app`` settings: bad operator settings fail at start-up."""

from __future__ import annotations

import pytest

from steadyflow import RetryConfig, StreamingMode
from steadyflow.server import ServerLimits, create_app
from steadyflow.server._errors import ApiError
from steadyflow.server._schemas import RunOptions
from steadyflow.sessions import InMemorySessionService
from tests.server.harness import echo_agent


def test_an_empty_auth_token_is_refused():
    with pytest.raises(ValueError, match="auth_token must not be empty"):
        create_app(echo_agent(), InMemorySessionService(), auth_token=" ")


def test_an_invalid_app_name_is_refused():
    with pytest.raises(ValueError, match="app_name 'has space' must match"):
        create_app(echo_agent(), InMemorySessionService(), app_name="has space")


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"max_llm_calls": 0}, "max_llm_calls"),
        ({"max_retry_attempts": True}, "max_retry_attempts"),
        ({"max_llm_calls": 10, "default_max_llm_calls": 11}, "default_max_llm_calls"),
        ({"retry_config": RetryConfig(max_attempts=9)}, "retry_config.max_attempts"),
        ({"max_body_bytes": -1}, "max_body_bytes"),
        ({"sse_ping_interval": 0}, "sse_ping_interval"),
    ],
)
def test_invalid_limits_raise_naming_the_field(kwargs: dict[str, object], field: str):
    with pytest.raises(ValueError, match=rf"ServerLimits\.{field}"):
        ServerLimits(**kwargs)  # type: ignore[arg-type]


def test_a_request_without_settings_gets_the_operators_defaults():
    limits = ServerLimits(default_max_llm_calls=7, retry_config=RetryConfig(max_attempts=3))
    config = limits.run_config(None, StreamingMode.SSE)
    assert config.max_llm_calls == 7
    assert config.retry_config == RetryConfig(max_attempts=3)
    assert config.streaming_mode is StreamingMode.SSE


def test_a_request_changes_only_the_retry_attempts_of_the_operators_policy():
    base = RetryConfig(max_attempts=2, initial_backoff=0.1, max_backoff=1.0)
    limits = ServerLimits(retry_config=base)
    options = RunOptions(retry_max_attempts=4, streaming_mode="none", max_llm_calls=3)
    config = limits.run_config(options, StreamingMode.SSE)
    assert config.retry_config == RetryConfig(max_attempts=4, initial_backoff=0.1, max_backoff=1.0)
    assert (config.max_llm_calls, config.streaming_mode) == (3, StreamingMode.NONE)


def test_every_field_outside_the_limits_is_named_at_once():
    options = RunOptions(max_llm_calls=1000, retry_max_attempts=0)
    with pytest.raises(ApiError) as caught:
        ServerLimits().run_config(options, StreamingMode.NONE)
    assert caught.value.status == 422
    assert [f.field for f in caught.value.fields] == [
        "run_config.max_llm_calls",
        "run_config.retry_max_attempts",
    ]
