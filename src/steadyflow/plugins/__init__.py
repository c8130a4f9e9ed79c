"""Plugins: hooks that apply to every agent of a runner (``Runner(plugins=[...])``)."""

from ._manager import PluginManager, hook_error
from .base_plugin import BasePlugin

__all__ = ["BasePlugin", "PluginManager", "hook_error"]
