"""Test doubles and helpers, public so users test their agents the way we do."""

from .scripted import FunctionLlm, ScriptedLlm, Step, Stream, call

__all__ = ["FunctionLlm", "ScriptedLlm", "Step", "Stream", "call"]
