"""Tool-call limits: how many tool calls an invocation may run, in all and per tool.

``UsageLimits(max_tool_calls=, max_calls_per_tool=)`` is checked before each
call runs (before its confirmation, its callbacks and the tool itself), so
a refused call does nothing at all. A call that passes counts at once, so
of a batch of parallel calls only as many run as the limit has left, the
first ones in the model's order. A refused call is not an error of the
invocation: like pydantic-ai's tool-call limit it is answered for the
model, with an error response naming the limit, so the model can finish
with what it has (``max_llm_calls`` still bounds a model that keeps
asking). What ran is counted in the invocation's usage totals, so the
limits hold across a resume.
"""

from __future__ import annotations

from ._totals import UsageTotals
from .limits import UsageLimits

__all__ = ["admit_tool_call"]


def admit_tool_call(limits: UsageLimits, totals: UsageTotals, tool: str) -> str | None:
    """Count a call of ``tool`` and return None, or return why it may not run (uncounted)."""
    total = limits.max_tool_calls
    if total is not None and totals.tool_calls >= total:
        return (
            f"tool call refused: max_tool_calls ({total}) reached for this invocation; "
            "no more tools can run, answer with what you have"
        )
    per_tool = (limits.max_calls_per_tool or {}).get(tool)
    by_name = totals.tool_calls_by_name
    if per_tool is not None and by_name.get(tool, 0) >= per_tool:
        return (
            f"tool call refused: max_calls_per_tool[{tool!r}] ({per_tool}) reached for "
            f"this invocation; do not call {tool!r} again"
        )
    totals.tool_calls += 1
    by_name[tool] = by_name.get(tool, 0) + 1
    return None
