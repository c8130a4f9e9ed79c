"""Flows: the model-call orchestration loop and its step-sized pieces.

A flow runs one agent's turns; it reads the agent through ``FlowAgent`` (the
members it needs), so any agent type with them can be run by a flow.
"""

from ._agent import FlowAgent
from .auto_flow import AutoFlow
from .base_flow import BaseLlmFlow
from .single_flow import SingleFlow

__all__ = ["AutoFlow", "BaseLlmFlow", "FlowAgent", "SingleFlow"]
