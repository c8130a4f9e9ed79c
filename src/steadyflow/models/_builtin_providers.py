"""The provider adapters' name patterns, registered without importing any SDK.

Each factory imports its adapter only when a matching name is resolved, so
``import steadyflow`` stays free of provider SDKs and a missing extra is
reported at resolution, naming the extra to install.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import BaseLlm

__all__ = ["register_all"]


def register_all(register: Callable[[str, Callable[[str], BaseLlm]], None]) -> None:
    """Register every built-in provider's patterns through ``register``."""
    # Provider adapters add themselves here as they land.
    del register
