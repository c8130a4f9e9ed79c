"""``LlmRegistry``: from a model name to a ``BaseLlm``.

Agents may name their model (``model="gpt-4o"``); the flow resolves the name
here. Provider adapters register their name patterns on import; users
register their own factories to route a name to a proxy or a test double.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import ClassVar

from ..errors import ModelNotFoundError
from .base import BaseLlm

__all__ = ["LlmRegistry"]

LlmFactory = Callable[[str], BaseLlm]


class LlmRegistry:
    """Process-wide map of name patterns (full-match regexes) to factories.

    Later registrations win over earlier ones, so a user's pattern overrides
    a built-in one. Resolved instances are cached per name.
    """

    _factories: ClassVar[dict[str, tuple[re.Pattern[str], LlmFactory]]] = {}
    _instances: ClassVar[dict[str, BaseLlm]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()
    _builtins_loaded: ClassVar[bool] = False

    @classmethod
    def register(cls, pattern: str, factory: LlmFactory) -> None:
        """Route names that fully match ``pattern`` to ``factory(name)``."""
        compiled = re.compile(pattern)
        with cls._lock:
            cls._factories.pop(pattern, None)
            cls._factories[pattern] = (compiled, factory)
            cls._instances.clear()

    @classmethod
    def unregister(cls, pattern: str) -> None:
        """Remove a pattern (no error when absent)."""
        with cls._lock:
            cls._factories.pop(pattern, None)
            cls._instances.clear()

    @classmethod
    def clear_cache(cls) -> None:
        """Forget the resolved instances, so the next ``resolve`` builds each model anew.

        A model reads its environment (key, base URL) when it is built: after
        changing those variables, clear the cache to have them read again.
        """
        with cls._lock:
            cls._instances.clear()

    @classmethod
    def patterns(cls) -> list[str]:
        """Registered patterns, newest first."""
        cls._load_builtins()
        return list(reversed(cls._factories))

    @classmethod
    def resolve(cls, name: str) -> BaseLlm:
        """The model for ``name``; a clear error listing patterns when none match."""
        cls._load_builtins()
        cached = cls._instances.get(name)
        if cached is not None:
            return cached
        for pattern, factory in reversed(cls._factories.values()):
            if pattern.fullmatch(name):
                llm = factory(name)
                cls._instances[name] = llm
                return llm
        known = ", ".join(cls.patterns()) or "(none)"
        raise ModelNotFoundError(
            f"no model registered for {name!r}; registered patterns: {known}. "
            "Pass a BaseLlm instance or call LlmRegistry.register(pattern, factory)."
        )

    @classmethod
    def _load_builtins(cls) -> None:
        if cls._builtins_loaded:
            return
        cls._builtins_loaded = True
        from . import _builtin_providers

        _builtin_providers.register_all(cls.register)
