"""``PluginManager``: a runner's plugins, as per-hook lists of the hooks they override.

The lists are built once, when the runner is made, so a hook no plugin
overrides costs the loop nothing (an empty tuple), and the flow chains each
list in front of the agent's own callbacks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .base_plugin import HOOKS, BasePlugin

__all__ = ["PluginManager"]


def _overridden(plugins: Sequence[BasePlugin], hook: str) -> tuple[Callable[..., Any], ...]:
    default = getattr(BasePlugin, hook)
    return tuple(
        getattr(plugin, hook) for plugin in plugins if getattr(type(plugin), hook) is not default
    )


class PluginManager:
    """The hooks of a runner's plugins, in the order the plugins were given.

    Raises:
        ValueError: an item is not a ``BasePlugin``, or two share a name.
    """

    __slots__ = ("plugins", *HOOKS)

    def __init__(self, plugins: Sequence[BasePlugin] = ()) -> None:
        seen: set[str] = set()
        for plugin in plugins:
            if not isinstance(plugin, BasePlugin):
                raise ValueError(f"plugins must be BasePlugin instances, got {plugin!r}")
            if plugin.name in seen:
                raise ValueError(f"two plugins are named {plugin.name!r}")
            seen.add(plugin.name)
        self.plugins = tuple(plugins)
        for hook in HOOKS:
            setattr(self, hook, _overridden(self.plugins, hook))

    def __repr__(self) -> str:
        return f"PluginManager({[p.name for p in self.plugins]})"

    def hooks(self, name: str) -> tuple[Callable[..., Any], ...]:
        """The plugins' overrides of hook ``name``, in plugin order."""
        hooks: tuple[Callable[..., Any], ...] = getattr(self, name)
        return hooks
