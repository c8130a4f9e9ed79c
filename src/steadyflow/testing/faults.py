"""Provider-like errors for ``ScriptedLlm`` scripts.

They are the exceptions real adapters raise (``steadyflow.errors``), with
the attributes the retry policy reads, so a script exercises the same
classification a real 503 would::

    llm = ScriptedLlm([http_error(503, retry_after=3.0), "hello"])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from ..errors import ModelConnectionError, ModelHTTPError, ModelTimeoutError

__all__ = ["caused_by", "connection_error", "http_error", "timeout_error"]

E = TypeVar("E", bound=BaseException)


def _retry_after_headers(seconds: float) -> dict[str, str]:
    if seconds < 0:
        raise ValueError(f"retry_after must be >= 0 seconds, got {seconds!r}")
    if float(seconds).is_integer():
        return {"retry-after": str(int(seconds))}
    return {"retry-after-ms": f"{seconds * 1000.0:g}"}


def http_error(
    status_code: int,
    message: str | None = None,
    *,
    retry_after: float | None = None,
    headers: Mapping[str, str] | None = None,
    body: Any = None,
    provider: str | None = None,
) -> ModelHTTPError:
    """An error status from the provider, as an adapter would raise it.

    Args:
        status_code: the HTTP status (e.g. 503, 429, 400).
        message: the error text; defaults to "provider returned HTTP {status}".
        retry_after: the provider's wait hint in seconds; sent as a
            ``retry-after`` header (``retry-after-ms`` when fractional) and
            set as the error's ``retry_after``.
        headers: more response headers.
        body: the provider's error body.
        provider: the provider name the error names.
    """
    if isinstance(status_code, bool) or not isinstance(status_code, int):
        raise ValueError(f"status_code must be an int, got {status_code!r}")
    if not 100 <= status_code <= 599:
        raise ValueError(f"status_code must be an HTTP status 100-599, got {status_code}")
    all_headers = dict(headers or {})
    if retry_after is not None:
        all_headers.update(_retry_after_headers(retry_after))
    return ModelHTTPError(
        status_code,
        message,
        provider=provider,
        retry_after=None if retry_after is None else float(retry_after),
        headers=all_headers,
        body=body,
    )


def connection_error(
    message: str = "connection reset by peer", *, provider: str | None = None
) -> ModelConnectionError:
    """The provider could not be reached (retryable)."""
    return ModelConnectionError(message, provider=provider)


def timeout_error(
    message: str = "the provider did not answer in time", *, provider: str | None = None
) -> ModelTimeoutError:
    """The provider did not answer in time (retryable)."""
    return ModelTimeoutError(message, provider=provider)


def caused_by(error: E, cause: BaseException) -> E:
    """Return ``error`` with ``cause`` as its ``__cause__``, like ``raise error from cause``."""
    error.__cause__ = cause
    return error
