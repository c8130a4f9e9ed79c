"""Flows: the model-call orchestration loop and its step-sized pieces.

A flow runs one agent's turns; it reads the agent through ``FlowAgent`` (the
members it needs), so any agent type with them can be run by a flow.

Import from this package (and processors from ``steadyflow.flows.processors``),
never from a submodule: every module here has an underscore name and may
change; the names in ``__all__`` are the public ones.
"""

from ._agent import FlowAgent
from ._auto_flow import AutoFlow
from ._base_flow import BaseLlmFlow
from ._single_flow import SingleFlow

__all__ = ["AutoFlow", "BaseLlmFlow", "FlowAgent", "SingleFlow"]
