"""Package attributes imported on first access (PEP 562), for the lazy package inits.

``import steadyflow`` loads nothing but this module: a public name's
submodule is imported when the name is first used, then cached in the
package's namespace.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_attributes"]


def lazy_attributes(
    package: str, namespace: dict[str, Any], submodules: Mapping[str, str], public: Sequence[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__`` for names listed in ``submodules``.

    Args:
        package: the package's ``__name__``.
        namespace: the package's ``globals()``, where loaded names are cached.
        submodules: public name -> the submodule (relative) that defines it.
        public: the package's ``__all__``, listed by ``dir()`` loaded or not.
    """

    def __getattr__(name: str) -> Any:
        module = submodules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(public))

    return __getattr__, __dir__
