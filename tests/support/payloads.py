"""Looking inside JSON payloads the tests receive."""

from __future__ import annotations

from typing import Any


def nulls(value: Any, path: str = "") -> list[str]:
    """The paths (``.content.parts[0].thought``) of every null in ``value``."""
    if value is None:
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in nulls(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in nulls(v, f"{path}[{i}]")]
    return []
