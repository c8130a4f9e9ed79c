import copy
import dataclasses
import pickle
import subprocess
import sys
from datetime import timedelta

import pytest

from steadyflow.retry import RetryConfig
from steadyflow.run_config import RunConfig


def test_defaults_match_the_design() -> None:
    config = RetryConfig()
    assert config.max_attempts == 1
    assert config.initial_backoff == 0.5
    assert config.max_backoff == 8.0
    assert config.multiplier == 2.0
    assert config.jitter_ratio == 0.2
    assert config.retryable_status_codes == frozenset({408, 429, 500, 502, 503, 504, 529})
    assert config.respect_retry_after is True
    assert config.max_retry_after == 60.0
    assert config.total_timeout is None


def test_default_and_disabled_are_equal_and_mean_one_attempt() -> None:
    assert RetryConfig() == RetryConfig.disabled()
    assert hash(RetryConfig()) == hash(RetryConfig.disabled())
    assert not RetryConfig().enabled


def test_more_than_one_attempt_is_enabled() -> None:
    assert RetryConfig(max_attempts=2).enabled


def test_run_config_retries_are_off_by_default() -> None:
    assert RunConfig().retry_config == RetryConfig.disabled()


def test_timedeltas_are_stored_as_float_seconds() -> None:
    config = RetryConfig(
        initial_backoff=timedelta(milliseconds=250),
        max_backoff=timedelta(seconds=4),
        max_retry_after=timedelta(minutes=2),
        total_timeout=timedelta(seconds=30),
    )
    assert (config.initial_backoff, config.max_backoff) == (0.25, 4.0)
    assert (config.max_retry_after, config.total_timeout) == (120.0, 30.0)


def test_status_codes_accept_any_iterable() -> None:
    assert RetryConfig(retryable_status_codes=[503, 503, 429]).retryable_status_codes == {503, 429}


def test_equal_settings_are_equal_configs() -> None:
    assert RetryConfig(max_attempts=3, initial_backoff=1) == RetryConfig(
        max_attempts=3, initial_backoff=timedelta(seconds=1)
    )
    assert RetryConfig(max_attempts=3) != RetryConfig(max_attempts=4)


def test_repr_shows_every_field() -> None:
    text = repr(RetryConfig(max_attempts=3))
    for field in dataclasses.fields(RetryConfig):
        assert f"{field.name}=" in text
    assert "max_attempts=3" in text


def test_config_is_frozen() -> None:
    config = RetryConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.max_attempts = 5  # type: ignore[misc]


@pytest.mark.parametrize(
    "clone",
    [copy.copy, copy.deepcopy, lambda c: pickle.loads(pickle.dumps(c))],
    ids=["copy", "deepcopy", "pickle"],
)
def test_copies_are_equal_to_the_original(clone) -> None:
    config = RetryConfig(max_attempts=4, jitter_ratio=0.0, retryable_status_codes={418})
    copied = clone(config)
    assert copied == config
    assert copied.retryable_status_codes == frozenset({418})


def test_replace_changes_one_field_and_keeps_the_rest() -> None:
    config = RetryConfig(max_attempts=4, initial_backoff=0.1)
    changed = dataclasses.replace(config, max_attempts=6)
    assert changed.max_attempts == 6
    assert changed.initial_backoff == 0.1
    assert config.max_attempts == 4


def test_replace_validates_the_new_value() -> None:
    with pytest.raises(ValueError, match="max_attempts"):
        dataclasses.replace(RetryConfig(), max_attempts=0)


def test_run_config_copy_keeps_the_retry_config() -> None:
    run_config = RunConfig(retry_config=RetryConfig(max_attempts=3))
    copied = dataclasses.replace(run_config, max_llm_calls=10)
    assert copied.retry_config == RetryConfig(max_attempts=3)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"max_attempts": 0}, "max_attempts"),
        ({"max_attempts": -1}, "max_attempts"),
        ({"max_attempts": 2.0}, "max_attempts"),
        ({"max_attempts": True}, "max_attempts"),
        ({"initial_backoff": -0.1}, "initial_backoff"),
        ({"initial_backoff": float("nan")}, "initial_backoff"),
        ({"initial_backoff": float("inf"), "max_backoff": float("inf")}, "initial_backoff"),
        ({"initial_backoff": "1s"}, "initial_backoff"),
        ({"max_backoff": -1.0}, "max_backoff"),
        ({"initial_backoff": 2.0, "max_backoff": 1.0}, "max_backoff"),
        ({"multiplier": 0.5}, "multiplier"),
        ({"multiplier": float("inf")}, "multiplier"),
        ({"multiplier": float("nan")}, "multiplier"),
        ({"multiplier": "2"}, "multiplier"),
        ({"jitter_ratio": -0.1}, "jitter_ratio"),
        ({"jitter_ratio": 1.5}, "jitter_ratio"),
        ({"jitter_ratio": float("nan")}, "jitter_ratio"),
        ({"retryable_status_codes": {99}}, "retryable_status_codes"),
        ({"retryable_status_codes": {600}}, "retryable_status_codes"),
        ({"retryable_status_codes": {"503"}}, "retryable_status_codes"),
        ({"retryable_status_codes": 503}, "retryable_status_codes"),
        ({"retryable_status_codes": "503"}, "retryable_status_codes"),
        ({"respect_retry_after": "yes"}, "respect_retry_after"),
        ({"max_retry_after": -1.0}, "max_retry_after"),
        ({"total_timeout": -1.0}, "total_timeout"),
        ({"total_timeout": timedelta(seconds=-1)}, "total_timeout"),
    ],
)
def test_invalid_values_raise_value_error_naming_the_field(kwargs, field) -> None:
    with pytest.raises(ValueError, match=field):
        RetryConfig(**kwargs)


@pytest.mark.slow  # a fresh interpreter
def test_the_config_imports_no_budget_or_breaker_implementation() -> None:
    code = (
        "import sys; from steadyflow.retry._config import RetryConfig;"
        "impl=('steadyflow.retry._budget','steadyflow.retry._breaker','steadyflow.retry._redis_budget');"
        "print([m for m in impl if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_budget_and_a_breaker_are_any_objects_with_their_methods() -> None:
    class Budget:
        async def allow(self, key: str, *, retry: bool) -> bool:
            return True

        async def record(self, key: str, *, failed: bool) -> None:
            pass

    class Breaker:
        async def acquire(self, key: str) -> None:
            pass

        async def record(self, key: str, *, failed: bool) -> None:
            pass

    budget, breaker = Budget(), Breaker()
    config = RetryConfig(budget=budget, circuit_breaker=breaker)
    assert (config.budget, config.circuit_breaker) == (budget, breaker)
    with pytest.raises(ValueError, match="circuit_breaker"):
        RetryConfig(circuit_breaker=budget)  # type: ignore[arg-type]
