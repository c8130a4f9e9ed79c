"""The commands, their flags and their help; each hands its work to its own module.

The app lives in ``_app``, the shared options in ``_options``; each
``_commands_*`` module registers one area's commands on the app. They are
imported here in the order ``steadyflow --help`` lists the commands.
"""

from __future__ import annotations

from . import _commands_agent, _commands_inspect, _commands_serve, _commands_store
from ._app import app

__all__ = ["app"]

del _commands_agent, _commands_inspect, _commands_serve, _commands_store  # registered on import
