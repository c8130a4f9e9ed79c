"""Flows: the model-call orchestration loop and its step-sized pieces."""

from .auto_flow import AutoFlow
from .base_flow import BaseLlmFlow
from .single_flow import SingleFlow

__all__ = ["AutoFlow", "BaseLlmFlow", "SingleFlow"]
