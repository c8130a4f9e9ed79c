"""``BaseToolset``: one object in ``LlmAgent(tools=[...])`` that contributes several tools.

A toolset's tools are asked for once per step (by the tools processor, before
the model call), so its list may change between steps: an MCP server adding a
tool is seen on the next step. A toolset may hold connections; the runner's
``close()`` closes every toolset in its agent tree.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..context import ReadonlyContext
    from .base_tool import BaseTool

__all__ = ["BaseToolset", "close_toolsets"]


class BaseToolset(ABC):
    """A source of tools whose list is read at each step.

    Subclasses implement ``get_tools``; they override ``close`` when they
    hold resources (connections, subprocesses).

    Attributes:
        optional: when ``get_tools`` raises ``ToolsetUnavailableError``, the
            step goes on without this toolset's tools (a warning in the log
            and the step's trace) instead of failing.
    """

    optional: bool = False

    @abstractmethod
    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The tools the model may call in this step.

        Raise ``ToolsetUnavailableError`` when they cannot be had (the step
        fails, unless the toolset is ``optional``).

        Args:
            readonly_context: the running invocation, seen read-only (None
                outside an invocation, e.g. for a listing).
        """

    async def close(self) -> None:  # noqa: B027  (a no-op is the right default)
        """Release what the toolset holds; it may be used again afterwards."""


def _toolsets_of_tree(agent: Any) -> Iterator[BaseToolset]:
    seen: set[int] = set()
    stack = [agent]
    while stack:
        node = stack.pop()
        for toolset in getattr(node, "toolsets", ()):
            if id(toolset) not in seen:
                seen.add(id(toolset))
                yield toolset
        stack.extend(getattr(node, "sub_agents", ()))


async def close_toolsets(root_agent: Any) -> None:
    """Close every toolset in the tree under ``root_agent``, each once, all of them.

    A toolset that fails to close does not stop the others; the first error
    is raised once all were tried.
    """
    first: BaseException | None = None
    for toolset in _toolsets_of_tree(root_agent):
        try:
            await toolset.close()
        except Exception as error:  # every toolset gets its close; the first failure is raised
            first = first or error
    if first is not None:
        raise first
