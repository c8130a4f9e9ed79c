"""Agents: the agent tree and the model-driven ``LlmAgent``."""

from ..context import CallbackContext, InvocationContext
from .base_agent import BaseAgent
from .llm_agent import LlmAgent

__all__ = ["BaseAgent", "CallbackContext", "InvocationContext", "LlmAgent"]
