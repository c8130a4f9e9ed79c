"""Optional bearer-token authentication, as plain ASGI middleware.

Without the right ``Authorization: Bearer <token>`` header every API
endpoint answers 401; ``/health`` and the viewer's static files (HTML, CSS,
JavaScript: no data) stay open, so a load balancer can probe the process and
a browser can load the viewer, which then asks for the token.

An operator token (``operator_token``), distinct from the user token, is
accepted wherever the user token is and is the only one that may list every
user's sessions (``GET /apps/{app}/sessions``).

The token is kept only as its SHA-256 digest and compared with
``hmac.compare_digest`` over digests, so the comparison takes the same time
whatever the presented token's length or content. Neither token is ever
logged or echoed in a response.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["BearerAuth", "TokenDigest", "presented_token"]

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


class TokenDigest:
    """One secret token, kept as its digest; ``matches`` compares in constant time."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("auth token must not be empty")
        self._digest = _digest(token.encode())

    def __repr__(self) -> str:
        return "TokenDigest(<hidden>)"

    def matches(self, headers: Iterable[tuple[bytes, bytes]]) -> bool:
        """Whether ``headers`` (ASGI's raw pairs) carry ``Authorization: Bearer <token>``."""
        return hmac.compare_digest(_digest(presented_token(headers)), self._digest)


def presented_token(headers: Iterable[tuple[bytes, bytes]]) -> bytes:
    """The bearer token in ``headers``, or b"" when there is none."""
    for name, value in headers:
        if name == b"authorization":
            scheme, _, credentials = value.partition(b" ")
            return credentials.strip() if scheme.lower() == b"bearer" else b""
    return b""


class BearerAuth:
    """ASGI middleware: 401 for every HTTP request without a token, except ``is_public`` paths.

    Args:
        app: the application to protect.
        tokens: the tokens accepted (the user token and, when set, the operator's).
        is_public: paths that need no token.
    """

    def __init__(
        self, app: ASGIApp, *, tokens: list[TokenDigest], is_public: Callable[[str], bool]
    ) -> None:
        self.app = app
        self._tokens = tokens
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
        # Every token is compared (no early exit): the time says nothing about which matched.
        matched = [token.matches(scope["headers"]) for token in self._tokens]
        return any(matched)
