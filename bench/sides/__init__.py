"""The sides of the comparison: steadyflow and the peers users would otherwise pick.

Each side has a module here defining ``make_adapter()`` (a ``drivers.Adapter``
over its own runtime and its own fake-model facility). This table is plain
data so the orchestrator can read it without importing any framework.

``--baseline COMMIT`` adds a second steadyflow side, ``steadyflow @<sha>``:
the same adapter, importing steadyflow from a worktree of that commit. It is
not a peer: the best-peer figures never include it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["BASELINE_PREFIX", "OURS", "PEERS", "SIDES", "Side", "baseline_side", "side_named"]


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

    @property
    def is_steadyflow(self) -> bool:
        """Runs steadyflow (the tree's or a baseline commit's) in the project's venv."""
        return self.requirement is None

    @property
    def is_baseline(self) -> bool:
        """steadyflow at the ``--baseline`` commit."""
        return self.name.startswith(BASELINE_PREFIX)

    @property
    def baseline_commit(self) -> str:
        """The short commit a baseline side measures ("" for every other side)."""
        return self.name.removeprefix(BASELINE_PREFIX) if self.is_baseline else ""


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

BASELINE_PREFIX = f"{OURS.name} @"


def baseline_side(short_sha: str) -> Side:
    """steadyflow at commit ``short_sha``, measured beside the tree (``--baseline``)."""
    return replace(OURS, name=BASELINE_PREFIX + short_sha)


def side_named(name: str) -> Side:
    """The side called ``name``: a fixed side, or a ``steadyflow @<sha>`` baseline."""
    if name in SIDES:
        return SIDES[name]
    if name.startswith(BASELINE_PREFIX) and len(name) > len(BASELINE_PREFIX):
        return baseline_side(name[len(BASELINE_PREFIX) :])
    raise ValueError(f"unknown side {name!r}; known: {', '.join(SIDES)}, {BASELINE_PREFIX}<sha>")
