"""``serve``: run an agent's server with uvicorn until interrupted (``steadyflow serve``).

The store is opened from a URL and closed when the server stops. Once the
socket is bound, a banner goes to stdout (not to the log): the app, the API
base URL (the real port when ``port=0``), the sessions database and the
viewer link. The link carries the token in its fragment (``/#token=...``):
a browser never sends a fragment, so the token reaches neither the server
nor its access log; the viewer reads it, keeps it for the tab and drops it
from the address bar. ``banner=False`` turns it off. Binding beyond loopback without a token is
allowed (a private network may be the guard) but logged as a warning.
Requests are answered for the loopback names, the bound address and
``allowed_hosts`` only (``_guard``); bound to every interface (``0.0.0.0``),
list the names clients use in ``allowed_hosts``.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import sys
from collections.abc import Collection
from dataclasses import dataclass, field
from urllib.parse import quote

import uvicorn

from .._redact import redact_url
from ..agents.base_agent import BaseAgent
from ..sessions.url import open_session_service
from ._app import create_app
from ._limits import ServerLimits

__all__ = ["Access", "banner", "serve", "serve_async"]

logger = logging.getLogger("steadyflow.server")

_LOOPBACK = ("127.0.0.1", "::1", "localhost")
_WILDCARDS = ("0.0.0.0", "::", "")


@dataclass(frozen=True, kw_only=True)
class Access:
    """Who may reach the server beyond the defaults (see ``create_app``).

    Attributes:
        allowed_hosts: ``Host`` names answered besides loopback and the bound
            address (``*``: any).
        allowed_origins: browser origins that may change state.
        operator_token: the token that may list every user's sessions.
        allow_shared_state: new sessions may set ``app:``/``user:`` keys.
    """

    allowed_hosts: Collection[str] = field(default_factory=tuple)
    allowed_origins: Collection[str] = field(default_factory=tuple)
    operator_token: str | None = None
    allow_shared_state: bool = False


def banner(app_name: str, base_url: str, session_url: str, token: str | None) -> str:
    """The lines ``serve`` prints once it listens (the token only in the viewer link)."""
    viewer = f"{base_url}/" + (f"#token={quote(token, safe='')}" if token else "")
    return "\n".join(
        [
            f"steadyflow serve · app {app_name}",
            f"  API:      {base_url}  (OpenAPI: {base_url}/openapi.json)",
            f"  viewer:   {viewer}",
            f"  sessions: {redact_url(session_url)}",
            "  Ctrl-C stops the server",
        ]
    )


def _base_url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    if host in _WILDCARDS:
        host = "::1" if sock.family == socket.AF_INET6 else "127.0.0.1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class _AnnouncingServer(uvicorn.Server):
    """uvicorn's server, printing the banner once the socket is bound."""

    def __init__(self, config: uvicorn.Config, announce: tuple[str, str, str | None]) -> None:
        super().__init__(config)
        self._announce = announce

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if not self.started or not self.servers or not self.servers[0].sockets:
            return
        app_name, session_url, token = self._announce
        base = _base_url(self.servers[0].sockets[0])  # pyright: ignore[reportArgumentType]
        print(banner(app_name, base, session_url, token), file=sys.stdout, flush=True)


async def serve_async(
    agent: BaseAgent,
    *,
    session_url: str,
    host: str = "127.0.0.1",
    port: int = 8000,
    limits: ServerLimits | None = None,
    auth_token: str | None = None,
    app_name: str | None = None,
    log_level: str = "info",
    access: Access | None = None,
    resume_expired: bool = True,
    show_banner: bool = True,
    temporal_address: str | None = None,
    task_queue: str = "steadyflow",
    namespace: str = "default",
) -> None:
    """Serve ``agent`` on ``host:port`` until the process is told to stop.

    Args:
        agent: the root agent.
        session_url: the session store (see ``open_session_service``);
            PostgreSQL lets several processes share sessions.
        host: the interface to bind (loopback by default).
        port: the TCP port (0 picks a free one).
        limits: the operator's ceilings for per-request settings.
        auth_token: require ``Authorization: Bearer <token>`` (never logged).
        app_name: the app's name in URLs (default: the agent's name).
        log_level: uvicorn's log level.
        access: hosts, origins, the operator token and shared-state writes.
        resume_expired: at start-up, resume the app's invocations whose lease
            expired or whose owner is gone, in the background (each one
            logged); the server answers from the start. False turns it off.
        show_banner: print the banner (see the module docstring) on stdout.
        temporal_address: ``HOST:PORT`` of a Temporal frontend: turns start
            workflows on ``task_queue`` (in ``namespace``) for a fleet of
            ``steadyflow worker`` processes instead of running here.
        task_queue: the fleet's Temporal task queue.
        namespace: the fleet's Temporal namespace.
    """
    access = access or Access()
    fleet = None
    if temporal_address is not None:
        from ..durable.temporal import TemporalFleet, TemporalSettings, connect

        settings = TemporalSettings(task_queue=task_queue, namespace=namespace)
        fleet = TemporalFleet(await connect(temporal_address, namespace=namespace), settings)
    store = open_session_service(session_url)
    hosts = [*access.allowed_hosts, *([] if host in _WILDCARDS else [host])]
    app = create_app(
        agent,
        store,
        limits,
        auth_token=auth_token,
        app_name=app_name,
        allowed_hosts=hosts,
        allowed_origins=access.allowed_origins,
        operator_token=access.operator_token,
        allow_shared_state=access.allow_shared_state,
        resume_expired=resume_expired,
        temporal=fleet,
    )
    if host in _WILDCARDS and not access.allowed_hosts:
        logger.warning(
            "bound to %s but no allowed host given: only loopback names are answered; "
            "pass the names clients use (--allowed-host)",
            host,
        )
    if auth_token is None and host not in _LOOPBACK:
        logger.warning(
            "serving on %s without an auth token: anyone who can reach it can run the agent",
            host,
        )
    config = uvicorn.Config(
        app, host=host, port=port, log_level=log_level, ws="none", timeout_graceful_shutdown=10
    )
    announce = (app_name or agent.name, session_url, auth_token)
    server = _AnnouncingServer(config, announce) if show_banner else uvicorn.Server(config)
    try:
        await server.serve()
    finally:
        await store.close()


def serve(
    agent: BaseAgent,
    *,
    session_url: str,
    host: str = "127.0.0.1",
    port: int = 8000,
    limits: ServerLimits | None = None,
    auth_token: str | None = None,
    app_name: str | None = None,
    log_level: str = "info",
    access: Access | None = None,
    resume_expired: bool = True,
    show_banner: bool = True,
    temporal_address: str | None = None,
    task_queue: str = "steadyflow",
    namespace: str = "default",
) -> None:
    """Blocking twin of ``serve_async``, for scripts and the command line."""
    asyncio.run(
        serve_async(
            agent,
            session_url=session_url,
            host=host,
            port=port,
            limits=limits,
            auth_token=auth_token,
            app_name=app_name,
            log_level=log_level,
            access=access,
            resume_expired=resume_expired,
            show_banner=show_banner,
            temporal_address=temporal_address,
            task_queue=task_queue,
            namespace=namespace,
        )
    )
