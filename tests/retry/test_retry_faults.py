"""steadyflow.testing's provider-like errors read like real adapter errors."""

import pytest

from steadyflow.errors import ModelConnectionError, ModelHTTPError, ModelTimeoutError
from steadyflow.testing import (
    ScriptedLlm,
    caused_by,
    connection_error,
    http_error,
    timeout_error,
)


def test_http_error_carries_status_and_retry_after_header() -> None:
    error = http_error(503, retry_after=3.0)
    assert isinstance(error, ModelHTTPError)
    assert (error.status_code, error.retry_after) == (503, 3.0)
    assert error.headers == {"retry-after": "3"}


def test_fractional_retry_after_is_sent_in_milliseconds() -> None:
    assert http_error(429, retry_after=0.25).headers == {"retry-after-ms": "250"}


def test_base_llm_reads_the_hint_from_the_header_alone() -> None:
    error = http_error(429, retry_after=1.5)
    error.retry_after = None
    assert ScriptedLlm([]).retry_after(error) == 1.5


def test_http_error_without_hint_has_none() -> None:
    error = http_error(400, "bad request", body={"error": "bad"})
    assert (error.retry_after, error.headers, error.body) == (None, {}, {"error": "bad"})
    assert str(error) == "bad request"


@pytest.mark.parametrize("status", [99, 600, "503", True])
def test_http_error_rejects_non_statuses(status) -> None:
    with pytest.raises(ValueError, match="status_code"):
        http_error(status)


def test_negative_retry_after_is_refused() -> None:
    with pytest.raises(ValueError, match="retry_after"):
        http_error(503, retry_after=-1.0)


def test_connection_and_timeout_errors_are_the_model_error_types() -> None:
    assert isinstance(connection_error(), ModelConnectionError)
    assert isinstance(timeout_error(), ModelTimeoutError)


def test_caused_by_sets_the_cause_and_returns_the_outer_error() -> None:
    inner = http_error(503)
    outer = caused_by(RuntimeError("wrapper"), inner)
    assert outer.__cause__ is inner
