"""Plugins written against ADK's hook signatures run unchanged.

A runner's plugin hooks chain with the agents' own callbacks, so they are
called with the callbacks' keyword names. ADK's ``BasePlugin`` names four
of them differently: its agent hooks also take ``agent``, and its tool
hooks take ``tool_args`` (for ``args``) and ``result`` (for
``tool_response``). A hook whose signature asks for ADK's names is wrapped,
once when the runner is built, in an ``AdkHook`` that renames the keyword
arguments on each call; every other hook is called as it is.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["AdkHook", "adk_hook"]

_AGENT_HOOKS = frozenset({"before_agent_callback", "after_agent_callback"})
_TOOL_HOOKS = frozenset({"before_tool_callback", "after_tool_callback", "on_tool_error_callback"})
_RENAMED = {"args": "tool_args", "tool_response": "result"}  # ours -> ADK's


class AdkHook:
    """A plugin's hook written with ADK's keyword names, called with steadyflow's.

    ``__self__`` and ``__name__`` are the hook's own, so errors still name
    the plugin and the hook.
    """

    __slots__ = ("__name__", "__self__", "_hook", "_renames", "_wants_agent")

    def __init__(
        self, hook: Callable[..., Any], renames: dict[str, str], *, wants_agent: bool
    ) -> None:
        self._hook = hook
        self._renames = renames
        self._wants_agent = wants_agent
        self.__self__: object = getattr(hook, "__self__", None)
        self.__name__: str = getattr(hook, "__name__", "hook")

    def __call__(self, **kwargs: Any) -> Any:
        """Call the hook with ADK's names for the arguments that differ."""
        for ours, theirs in self._renames.items():
            if ours in kwargs:
                kwargs[theirs] = kwargs.pop(ours)
        if self._wants_agent:
            kwargs["agent"] = kwargs["callback_context"].invocation_context.agent
        return self._hook(**kwargs)


def adk_hook(hook: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``hook`` itself, or an ``AdkHook`` when its signature asks for ADK's names."""
    if name not in _AGENT_HOOKS and name not in _TOOL_HOOKS:
        return hook
    parameters = inspect.signature(hook).parameters
    wants_agent = name in _AGENT_HOOKS and "agent" in parameters
    renames = {
        ours: theirs
        for ours, theirs in _RENAMED.items()
        if name in _TOOL_HOOKS and theirs in parameters and ours not in parameters
    }
    if not wants_agent and not renames:
        return hook
    return AdkHook(hook, renames, wants_agent=wants_agent)
