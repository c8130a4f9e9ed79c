"""The seam through which an adapter hands a successful answer's HTTP headers upwards.

A provider's rate-limit headers (``x-ratelimit-remaining-requests``,
``anthropic-ratelimit-tokens-reset``...) come with every answer, not only
with a 429: a pacer that reads them sends at the rate the provider accepts
instead of learning it from refusals. Errors already carry their headers
(``ModelError.headers``); for a success, the adapter calls
``report_response_headers`` as soon as the response head arrives.

Models never import the retry loop, so the loop listens instead: around each
step of an attempt (never across a ``yield``) it sets a sink in a context
variable with ``headers_reported_to``, and ``report_response_headers`` hands
the headers to whatever sink is current. With no listener the report costs
one context-variable read. Custom adapters call it the same way.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Generator, Mapping
from contextlib import contextmanager
from typing import Any

__all__ = ["HeaderSink", "headers_reported_to", "report_response_headers"]

HeaderSink = Callable[[Mapping[str, str]], None]
"""Receives one answer's headers, names lower-cased."""

_SINK: contextvars.ContextVar[HeaderSink | None] = contextvars.ContextVar(
    "steadyflow_response_headers", default=None
)


def report_response_headers(headers: Any) -> None:
    """Hand the headers of a provider's answer to the retry loop, if one listens.

    Args:
        headers: a mapping (or ``httpx.Headers``) of the response's headers.
    """
    sink = _SINK.get()
    if sink is None or headers is None:
        return
    items = headers.items() if hasattr(headers, "items") else headers
    sink({str(k).lower(): str(v) for k, v in items})


@contextmanager
def headers_reported_to(sink: HeaderSink) -> Generator[None]:
    """Within the block, ``report_response_headers`` hands headers to ``sink``.

    Use it around an ``await``, never across a ``yield``: the variable is
    reset when the block ends, in the context that set it.
    """
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)
