"""The HTTP API and the web trace viewer for one agent (``steadyflow serve AGENT``).

``create_app(agent, session_service, limits, auth_token=...)`` returns an
ASGI application (Starlette) to run with uvicorn: sessions, ``POST /run``,
``POST /run_sse`` (Server-Sent Events), ``GET /health``, the OpenAPI spec at
``/openapi.json`` and the trace viewer at ``/``. It keeps no state of its own,
so many processes can share one PostgreSQL session store.

Needs the ``server`` extra: ``pip install 'steadyflow[server]'``.
"""

from __future__ import annotations

try:
    import starlette  # pyright: ignore[reportUnusedImport]  # noqa: F401
    import uvicorn  # pyright: ignore[reportUnusedImport]  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "steadyflow.server needs the server extra: pip install 'steadyflow[server]'"
    ) from error

from ._app import create_app
from ._limits import ServerLimits
from ._serve import Access, serve, serve_async
from ._turns import TurnRegistry

__all__ = ["Access", "ServerLimits", "TurnRegistry", "create_app", "serve", "serve_async"]
