"""``list_of``: the typed factory of an empty list, for field defaults made per model call.

``Field(default_factory=list)`` leaves the type checker an unknown item type,
and the usual ``lambda: []`` costs a Python frame every time a default is
made: a request, its config and the invocation's trace each make one on every
step. ``list_of(T)`` is ``list`` itself, typed as making a ``list[T]``
(``list[T]`` called as a factory would be typed too, but sets an attribute
the list refuses and swallows the error, each time).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, cast

__all__ = ["list_of"]

_T = TypeVar("_T")


def list_of(item: type[_T]) -> Callable[[], list[_T]]:
    """``list``, typed as the factory of an empty ``list[item]`` (``item`` only names the type)."""
    del item
    return cast("Callable[[], list[_T]]", list)
