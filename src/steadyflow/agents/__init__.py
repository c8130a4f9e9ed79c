"""Agents: the agent tree, the model-driven ``LlmAgent`` and the workflow agents."""

from ..context import CallbackContext, InvocationContext, ReadonlyContext
from .base_agent import BaseAgent
from .llm_agent import LlmAgent
from .workflow import LoopAgent, ParallelAgent, SequentialAgent

__all__ = [
    "BaseAgent",
    "CallbackContext",
    "InvocationContext",
    "LlmAgent",
    "LoopAgent",
    "ParallelAgent",
    "ReadonlyContext",
    "SequentialAgent",
]
