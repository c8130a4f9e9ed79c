"""Which agent trees the Temporal mode runs: ``LlmAgent``s, with transfers between them.

The workflow drives each model step and tool batch of an ``LlmAgent`` as
activities; a workflow agent (sequential, parallel, loop) or a custom
``BaseAgent`` has no such steps, so it runs in-process only. Checked when a
``TemporalRunner`` or a worker is made, so the mistake is a typed error at
start-up rather than a failing activity at the first turn.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...agents.base_agent import BaseAgent
from ...agents.llm_agent import LlmAgent
from ...errors import ConfigurationError

__all__ = ["check_tree"]


def _walk(agent: BaseAgent) -> Iterator[BaseAgent]:
    yield agent
    for sub in agent.sub_agents:
        yield from _walk(sub)


def check_tree(agent: BaseAgent) -> None:
    """Raise ``ConfigurationError`` naming the first agent of the tree not an ``LlmAgent``."""
    for node in _walk(agent):
        if not isinstance(node, LlmAgent):
            raise ConfigurationError(
                f"agent {node.name!r} is a {type(node).__name__}: the Temporal mode runs "
                "trees of LlmAgent (transfers between them work); workflow agents and "
                "custom agents run in-process, with steadyflow.Runner"
            )
