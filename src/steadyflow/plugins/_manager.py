"""``PluginManager``: a runner's plugins, as per-hook lists of the hooks they override.

The lists are built once, when the runner is made, so a hook no plugin
overrides costs the loop nothing (an empty tuple), and the flow chains each
list in front of the agent's own callbacks. The manager also tells every
plugin of an error (``notify``), closes them (``close``), and turns an
exception a plugin's hook raised into one that names the plugin and the
hook (``hook_error``).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import PluginError, SteadyflowError
from ._adk_names import adk_hook
from .base_plugin import HOOKS, BasePlugin

__all__ = ["PluginManager", "hook_error"]

logger = logging.getLogger("steadyflow.plugins")


def _overridden(plugins: Sequence[BasePlugin], hook: str) -> tuple[Callable[..., Any], ...]:
    default = getattr(BasePlugin, hook)
    return tuple(
        adk_hook(getattr(plugin, hook), hook)
        for plugin in plugins
        if getattr(type(plugin), hook) is not default
    )


def _plugin_of(hook: Callable[..., Any]) -> BasePlugin | None:
    plugin = getattr(hook, "__self__", None)
    return plugin if isinstance(plugin, BasePlugin) else None


def hook_error(hook: Callable[..., Any], error: Exception) -> Exception:
    """``error`` as the caller of ``hook`` should raise it.

    A plugin's hook: a ``PluginError`` naming the plugin and the hook (the
    caller chains ``error`` as its cause), unless ``error`` is a steadyflow
    error, raised on purpose, which keeps its type and gets a note naming
    them. Any other callable (an agent's callback): ``error`` itself.
    """
    plugin = _plugin_of(hook)
    if plugin is None:
        return error
    name = getattr(hook, "__name__", "a hook")
    if isinstance(error, SteadyflowError):
        error.add_note(f"raised by plugin {plugin.name!r} in {name}")
        return error
    return PluginError(plugin.name, name, error)


class PluginManager:
    """The hooks of a runner's plugins, in the order the plugins were given.

    Args:
        plugins: the plugins.
        close_timeout: seconds each plugin's ``close()`` may take (as ADK's
            manager, 5 by default); past it the plugin is left and the
            others still close.

    Raises:
        ValueError: an item is not a ``BasePlugin``, or two share a name.
    """

    __slots__ = ("close_timeout", "plugins", *HOOKS)

    def __init__(self, plugins: Sequence[BasePlugin] = (), *, close_timeout: float = 5.0) -> None:
        seen: set[str] = set()
        for plugin in plugins:
            if not isinstance(plugin, BasePlugin):
                raise ValueError(f"plugins must be BasePlugin instances, got {plugin!r}")
            if plugin.name in seen:
                raise ValueError(f"two plugins are named {plugin.name!r}")
            seen.add(plugin.name)
        self.plugins = tuple(plugins)
        self.close_timeout = close_timeout
        for hook in HOOKS:
            setattr(self, hook, _overridden(self.plugins, hook))

    def __repr__(self) -> str:
        return f"PluginManager({[p.name for p in self.plugins]})"

    def hooks(self, name: str) -> tuple[Callable[..., Any], ...]:
        """The plugins' overrides of hook ``name``, in plugin order."""
        hooks: tuple[Callable[..., Any], ...] = getattr(self, name)
        return hooks

    def get_plugin(self, name: str) -> BasePlugin | None:
        """The plugin named ``name``, or None (as ADK's ``PluginManager.get_plugin``)."""
        return next((plugin for plugin in self.plugins if plugin.name == name), None)

    async def notify(self, hook: str, **kwargs: Any) -> None:
        """Tell every plugin that overrides ``hook``; results are ignored, failures logged.

        For the hooks that only notify (an error, a cancellation): one
        plugin's failure must not keep the others from hearing of it, nor
        hide the error being reported.
        """
        for callback in self.hooks(hook):
            try:
                result = callback(**kwargs)
                if inspect.isawaitable(result):
                    await result
            except Exception as error:
                plugin = _plugin_of(callback)
                logger.exception(
                    "plugin %r raised in %s (ignored; the other plugins are still told): %s: %s",
                    plugin.name if plugin is not None else callback,
                    hook,
                    type(error).__name__,
                    error,
                )

    async def close(self) -> None:
        """Close every plugin, in order, each within ``close_timeout`` seconds.

        A plugin that fails or overruns is logged and the rest still close;
        then the first failure is raised.

        Raises:
            PluginError: a plugin's ``close()`` raised or overran.
        """
        failure: PluginError | None = None
        for plugin in self.plugins:
            try:
                async with asyncio.timeout(self.close_timeout):
                    await plugin.close()
            except Exception as error:
                logger.exception("plugin %r failed to close", plugin.name)
                if failure is None:
                    failure = PluginError(plugin.name, "close", error)
                    failure.__cause__ = error
        if failure is not None:
            raise failure
