"""``RequestGuard``: what the server checks on every request before any endpoint runs.

A token-less server on loopback (the default) is reachable by every web
page the user opens, and by DNS rebinding. Two checks close that:

- **Host.** A request whose ``Host`` is not one of the server's names is
  refused (400): loopback names (``localhost``, ``127.0.0.1``, ``::1``),
  the bound address, and what the operator allows (``--allowed-host``;
  ``*`` turns the check off, for a proxy that checks it). A rebound name
  (``evil.example`` resolving to 127.0.0.1) never matches.
- **Origin.** A state-changing request (``POST``, ``PUT``, ``PATCH``,
  ``DELETE``) that a browser sent from another origin is refused (403).
  Same-origin requests (the viewer) carry an ``Origin`` equal to the
  server's own; ``Origin: null`` (sandboxed frames, files) is refused;
  clients that are not browsers send no ``Origin`` and pass. The operator
  can allow other origins (``allowed_origins``).

Bodies must say ``Content-Type: application/json`` (415 otherwise; checked
where the body is read): a cross-origin ``no-cors`` request can only send
form or text types, so this needs no preflight to be safe.
"""

from __future__ import annotations

import json
from collections.abc import Collection

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["LOOPBACK_HOSTS", "RequestGuard"]

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
_STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def host_name(host: str) -> str:
    """The name part of a ``Host`` value: no port, no brackets, lower case, no final dot."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    if host.count(":") == 1:
        host = host.partition(":")[0]
    return host.rstrip(".")


def _error(status: int, kind: str, message: str) -> tuple[int, bytes]:
    return status, json.dumps({"error": {"type": kind, "message": message}}).encode()


class RequestGuard:
    """ASGI middleware: refuse foreign ``Host`` headers (400) and cross-origin writes (403).

    Args:
        app: the application to guard.
        allowed_hosts: host names besides the loopback names (``*``: any).
        allowed_origins: origins (``https://app.example``) besides the
            server's own that may send state-changing requests.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_hosts: Collection[str] = (),
        allowed_origins: Collection[str] = (),
    ) -> None:
        self.app = app
        self._any_host = "*" in allowed_hosts
        self._hosts = LOOPBACK_HOSTS | {host_name(h) for h in allowed_hosts if h != "*"}
        self._origins = frozenset(o.rstrip("/").lower() for o in allowed_origins)

    def __repr__(self) -> str:
        hosts = "*" if self._any_host else ", ".join(sorted(self._hosts))
        return f"RequestGuard(hosts={hosts})"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass requests that pass both checks; answer the others with a JSON error."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, body = refusal
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _refusal(self, scope: Scope) -> tuple[int, bytes] | None:
        host = origin = None
        for name, value in scope["headers"]:
            if name == b"host":
                host = value.decode("latin-1")
            elif name == b"origin":
                origin = value.decode("latin-1")
        if not self._any_host and (host is None or host_name(host) not in self._hosts):
            message = (
                f"Host {host!r} is not served here; start the server with "
                "--allowed-host NAME for each name clients use"
            )
            return _error(400, "host_not_allowed", message)
        if origin is None or scope["method"] not in _STATE_CHANGING:
            return None
        origin = origin.strip().rstrip("/").lower()
        if origin.partition("://")[2] == (host or "").strip().lower() or origin in self._origins:
            return None
        message = f"requests from origin {origin!r} may not change anything here"
        return _error(403, "origin_not_allowed", message)
