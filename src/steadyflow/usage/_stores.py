"""Which spend store a runner uses when it is given none: the session store's own.

A session service that has a ``spend_store()`` method (the SQL store: a
table in the session database) provides it, so a daily per-user cap needs
no extra server; any other service gets one in-memory store, shared by every
runner on that service.
"""

from __future__ import annotations

import weakref
from typing import Any, cast

from ._memory_spend import InMemorySpendStore
from .spend import SpendStore

__all__ = ["default_spend_store"]

_in_memory: weakref.WeakKeyDictionary[Any, InMemorySpendStore] = weakref.WeakKeyDictionary()


def default_spend_store(session_service: Any) -> SpendStore:
    """The spend store that goes with ``session_service``."""
    own = getattr(session_service, "spend_store", None)
    if callable(own):
        store = cast(SpendStore, own())
        return store
    memory = _in_memory.get(session_service)
    if memory is None:
        memory = _in_memory[session_service] = InMemorySpendStore()
    return memory
