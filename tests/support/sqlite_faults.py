"""SQLite databases that refuse writes or fill up, for store-failure tests.

Tests run as root, which ignores file modes, so a read-only or full
database is made per connection: ``PRAGMA query_only=ON`` (every write is
"attempt to write a readonly database") or ``PRAGMA max_page_count=1``
("database or disk is full").
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

__all__ = ["FULL", "READ_ONLY", "pragma_on_connect"]

READ_ONLY = "PRAGMA query_only=ON"
FULL = "PRAGMA max_page_count=1"


@contextmanager
def pragma_on_connect(target: Any, pragma: str) -> Iterator[None]:
    """Run ``pragma`` on every connection ``target`` opens inside the block.

    ``target`` is an engine (``service.engine.sync_engine``) or the
    ``sqlalchemy.engine.Engine`` class (every engine, e.g. the CLI's own).
    """

    def apply(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute(pragma)
        cursor.close()

    event.listen(target, "connect", apply)
    try:
        yield
    finally:
        event.remove(target, "connect", apply)
