"""Database failures as ``SessionStoreError``: the store's URL and reason, never the SQL.

SQLAlchemy's own errors print the statement with its bound parameters,
which hold user content (messages, state); a read-only file, a full disk or
a database that went away must reach the CLI and the server as a typed
error they can show. Only failures of the database itself are mapped
(``OperationalError``, ``InterfaceError``, ``InternalError``, and ``OSError``
from a connection): a ``ProgrammingError`` is a bug and stays one.
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager

from sqlalchemy.exc import DBAPIError, InterfaceError, InternalError, OperationalError

from ...errors import SessionStoreError

__all__ = ["store_failures"]

_STORE_FAILURES = (OperationalError, InterfaceError, InternalError, OSError)


def _reason(error: BaseException) -> str:
    """The database's own words: the driver's message, without SQL or parameters."""
    cause: BaseException = error
    if isinstance(error, DBAPIError) and error.orig is not None:
        cause = error.orig
    text = " ".join(str(cause).split()) or type(cause).__name__
    return text[:300]


@contextmanager
def store_failures(where: str, action: str) -> Generator[None, None, None]:
    """Raise ``SessionStoreError(where, action, reason)`` for a failure of the database.

    Args:
        where: the store's URL, credentials already masked.
        action: what was being done ("append an event"), for the message.
    """
    try:
        yield
    except _STORE_FAILURES as error:
        raise SessionStoreError(where, action, _reason(error)) from error
