"""Test doubles and helpers, public so users test their agents the way we do."""

from .harness import TurnResult, run_turn
from .scripted import FunctionLlm, ScriptedLlm, Step, Stream, call

__all__ = ["FunctionLlm", "ScriptedLlm", "Step", "Stream", "TurnResult", "call", "run_turn"]
