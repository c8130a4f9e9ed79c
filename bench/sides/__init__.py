"""The sides of the comparison: steadyflow and the peers users would otherwise pick.

Each side has a module here defining ``make_adapter()`` (a ``drivers.Adapter``
over its own runtime and its own fake-model facility). This table is plain
data so the orchestrator can read it without importing any framework.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["OURS", "PEERS", "SIDES", "Side"]


@dataclass(frozen=True)
class Side:
    """One framework in the comparison.

    Attributes:
        name: the name shown in tables (the PyPI distribution for peers).
        module: the adapter module under ``bench.sides``.
        requirement: what ``pip install`` gets for a peer (None for ours).
        import_statement: the agent-API import timed in scenario 5.
    """

    name: str
    module: str
    requirement: str | None
    import_statement: str


OURS = Side(
    name="steadyflow",
    module="sf_side",
    requirement=None,
    # The agent API, as for the peers: a bare `import steadyflow` loads nothing (lazy).
    import_statement="from steadyflow import LlmAgent, Runner",
)

PEERS = (
    Side(
        name="google-adk",
        module="adk_side",
        requirement="google-adk",
        import_statement=(
            "from google.adk.agents import LlmAgent; from google.adk.runners import Runner"
        ),
    ),
    Side(
        name="openai-agents",
        module="oai_side",
        requirement="openai-agents",
        import_statement="from agents import Agent, Runner",
    ),
    Side(
        name="pydantic-ai",
        module="pai_side",
        requirement="pydantic-ai-slim",
        import_statement="from pydantic_ai import Agent",
    ),
)

SIDES: dict[str, Side] = {side.name: side for side in (OURS, *PEERS)}
