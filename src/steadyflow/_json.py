"""Type guards for JSON decoded at a boundary (a wire payload, a stored row, a request body).

``isinstance(value, dict)`` narrows a value of unknown shape to a dict of unknown
keys and values, which a strict type checker cannot follow; these guards say what
decoded JSON is (string keys, values of any JSON type), so the code reading a
payload stays typed without a cast at every step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

__all__ = ["is_array", "is_mapping", "is_object"]


def is_object(value: object) -> TypeGuard[dict[str, Any]]:
    """Whether ``value`` is a decoded JSON object (a ``dict``)."""
    return isinstance(value, dict)


def is_mapping(value: object) -> TypeGuard[Mapping[str, Any]]:
    """Whether ``value`` is a mapping (a decoded JSON object or a read-only view of one)."""
    return isinstance(value, Mapping)


def is_array(value: object) -> TypeGuard[list[Any]]:
    """Whether ``value`` is a decoded JSON array (a ``list``)."""
    return isinstance(value, list)
