"""The exception tree: where the tool and trace errors sit, and where users import them."""

from decimal import Decimal

import pytest

from steadyflow import SessionError, SteadyflowError
from steadyflow.errors import SchemaVersionError, ToolArgumentsError, ToolResponseError
from steadyflow.server._errors import status_for
from steadyflow.tools import ToolArgumentsError as ToolArgumentsErrorFromTools
from steadyflow.trace_record import InvocationTrace
from steadyflow.trace_record import TraceFormatError as TraceFormatErrorFromTraceRecord


def test_tool_arguments_error_is_a_tool_response_error_the_model_reads():
    error = ToolArgumentsError("speed: not a number")
    assert isinstance(error, SteadyflowError)
    assert isinstance(error, ToolResponseError)
    assert isinstance(error, ValueError)
    assert error.response == {"error": "speed: not a number"}
    assert ToolArgumentsErrorFromTools is ToolArgumentsError


def test_trace_format_error_is_a_session_error_still_exported_by_trace_record():
    with pytest.raises(TraceFormatErrorFromTraceRecord) as caught:
        InvocationTrace.from_stored('{"steps": "not a list"}')
    assert isinstance(caught.value, SteadyflowError)
    assert isinstance(caught.value, SessionError)
    assert isinstance(caught.value, ValueError)
    assert not isinstance(caught.value, SchemaVersionError)


def test_an_unreadable_stored_trace_is_a_server_error_not_a_conflict():
    assert status_for(TraceFormatErrorFromTraceRecord("not a steadyflow trace")) == 500
    assert status_for(SessionError("session 's' already exists")) == 409


def test_a_usage_or_spend_limit_is_a_429_like_the_call_budget():
    from steadyflow.errors import LlmCallsLimitExceededError, UsageLimitExceededError

    one, cent = Decimal(1), Decimal("0.01")
    refused = UsageLimitExceededError("user:max_cost", one, one, cent, "attempt 1", unit="usd")
    assert status_for(refused) == status_for(LlmCallsLimitExceededError(5)) == 429
