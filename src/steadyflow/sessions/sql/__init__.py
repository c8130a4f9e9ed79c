"""Sessions in SQLite (the embedded default) or PostgreSQL, on SQLAlchemy 2 async.

Needs the ``sql`` extra: ``pip install 'steadyflow[sql]'``. Import
``SqlSessionService`` from here (or from ``steadyflow.sessions``): the modules
of this package have underscore names and may change.
"""

from __future__ import annotations

try:
    import sqlalchemy  # pyright: ignore[reportUnusedImport]  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "SqlSessionService needs SQLAlchemy; install it with: pip install 'steadyflow[sql]'"
    ) from exc

from ._schema import SCHEMA_VERSION
from ._service import SqlSessionService

__all__ = ["SCHEMA_VERSION", "SqlSessionService"]
