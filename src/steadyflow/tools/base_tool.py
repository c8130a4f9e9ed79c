"""``BaseTool``: what the flow needs from a tool (a declaration and a way to run it)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from ..context import ToolContext
from ..types import FunctionDeclaration

__all__ = ["BaseTool"]


class BaseTool(ABC):
    """A capability the model can call by name.

    Attributes:
        name: the name the model calls it by.
        description: what it does, for the model.
        is_long_running: the call starts work that finishes later; the turn
            does not wait for it (its id goes in ``long_running_tool_ids``).
        is_idempotent: running the call twice does no more than running it
            once (it deduplicates on ``tool_context.idempotency_key``, or has
            no side effects), so a resumed invocation may run again a call
            that was in flight when its process died. False: such a call is
            not run again; the model is told its outcome is unknown.
        server_name: the server that provides the tool (an MCP toolset's
            name for its server), None for a local tool; traces record it.
        may_need_confirmation: False when ``needs_confirmation`` answers
            False for every call, so tool dispatch does not ask it (an await
            per call). A subclass that overrides ``needs_confirmation`` gets
            True; ``FunctionTool`` sets it from ``require_confirmation``.
    """

    is_long_running: bool = False
    is_idempotent: bool = False
    server_name: str | None = None
    may_need_confirmation: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "needs_confirmation" in cls.__dict__:
            cls.may_need_confirmation = True

    def __init__(self, *, name: str, description: str = "") -> None:
        if not name.isidentifier():
            raise ValueError(f"tool name must be an identifier, got {name!r}")
        self.name = name
        self.description = description

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"

    async def needs_confirmation(self, *, args: dict[str, Any], tool_context: ToolContext) -> bool:
        """Whether this call must wait for a person's yes or no before it runs.

        Asked before anything of the call runs (before-tool callbacks
        included); not asked again for a call a person already answered.
        The default: never.
        """
        return False

    @abstractmethod
    def declaration(self) -> FunctionDeclaration:
        """The declaration sent to the model."""

    @abstractmethod
    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Run the tool with the model's arguments.

        Raise ``ToolArgumentsError`` for arguments that fail validation (the
        model reads its message); any other exception is reported to the
        model as an error response.
        """
