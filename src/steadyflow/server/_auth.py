"""Optional bearer-token authentication, as plain ASGI middleware.

Without the right ``Authorization: Bearer <token>`` header every API
endpoint answers 401; ``/health`` and the viewer's static files (HTML, CSS,
JavaScript: no data) stay open, so a load balancer can probe the process and
a browser can load the viewer, which then asks for the token.

The token is kept only as its SHA-256 digest and compared with
``hmac.compare_digest`` over digests, so the comparison takes the same time
whatever the presented token's length or content. Neither token is ever
logged or echoed in a response.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["BearerAuth"]

_UNAUTHORIZED = json.dumps(
    {
        "error": {
            "type": "unauthorized",
            "message": "missing or wrong bearer token (send 'Authorization: Bearer <token>')",
        }
    }
).encode()


def _digest(token: bytes) -> bytes:
    return hashlib.sha256(token).digest()


class BearerAuth:
    """ASGI middleware: 401 for every HTTP request without the token, except ``is_public`` paths.

    Args:
        app: the application to protect.
        token: the expected token (not empty).
        is_public: paths that need no token.
    """

    def __init__(self, app: ASGIApp, *, token: str, is_public: Callable[[str], bool]) -> None:
        if not token:
            raise ValueError("auth token must not be empty")
        self.app = app
        self._digest = _digest(token.encode())
        self._is_public = is_public

    def __repr__(self) -> str:
        return "BearerAuth(token=<hidden>)"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass authorized requests through; answer 401 to the others."""
        if scope["type"] != "http" or self._is_public(scope["path"]) or self._authorized(scope):
            await self.app(scope, receive, send)
            return
        headers = [
            (b"content-type", b"application/json"),
            (b"www-authenticate", b'Bearer realm="steadyflow"'),
            (b"content-length", str(len(_UNAUTHORIZED)).encode()),
        ]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": _UNAUTHORIZED})

    def _authorized(self, scope: Scope) -> bool:
        presented = b""
        for name, value in scope["headers"]:
            if name == b"authorization":
                scheme, _, credentials = value.partition(b" ")
                if scheme.lower() == b"bearer":
                    presented = credentials.strip()
                break
        return hmac.compare_digest(_digest(presented), self._digest)
