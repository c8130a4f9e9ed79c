"""Test doubles and helpers, public so users test their agents the way we do."""

from .clock import FakeClock, fake_clock, is_testing, set_testing
from .faults import caused_by, connection_error, http_error, timeout_error
from .harness import TurnResult, run_turn
from .scripted import FunctionLlm, ScriptedLlm, Step, Stream, call

__all__ = [
    "FakeClock",
    "FunctionLlm",
    "ScriptedLlm",
    "Step",
    "Stream",
    "TurnResult",
    "call",
    "caused_by",
    "connection_error",
    "fake_clock",
    "http_error",
    "is_testing",
    "run_turn",
    "set_testing",
    "timeout_error",
]
