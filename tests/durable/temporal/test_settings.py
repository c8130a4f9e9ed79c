"""``TemporalSettings``: defaults, validation, and the part that travels with an invocation."""

from __future__ import annotations

import pytest

from steadyflow.durable.temporal import TemporalSettings, TimeoutSettings
from steadyflow.errors import ConfigurationError


def test_the_defaults_are_the_documented_ones() -> None:
    settings = TemporalSettings()
    assert (settings.task_queue, settings.namespace) == ("steadyflow", "default")
    assert settings.timeouts() == TimeoutSettings(
        model_call_timeout=600.0,
        tool_timeout=300.0,
        store_timeout=30.0,
        heartbeat_timeout=10.0,
        worker_loss_attempts=5,
    )
    assert settings.lease_seconds == 3600.0


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("heartbeat_timeout", 0),
        ("tool_timeout", -1.0),
        ("model_call_timeout", float("inf")),
        ("worker_loss_attempts", 0),
        ("store_timeout", True),
        ("worker_loss_attempts", 2.5),
    ],
)
def test_a_bad_value_is_refused_naming_the_field(field: str, value: object) -> None:
    with pytest.raises(ConfigurationError, match=field):
        TemporalSettings(**{field: value})  # type: ignore[arg-type]


def test_an_empty_task_queue_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="task_queue"):
        TemporalSettings(task_queue="")
