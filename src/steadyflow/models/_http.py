"""What the provider adapters share: SDK import hints, keys, errors and finishes.

Every adapter imports its SDK lazily with the same install hint, reads its
API key the same way (and never lets it into a message), turns an HTTP
failure into ``ModelHTTPError`` with the same fields, decides retryability
from status and the ``x-should-retry`` header by the same rule, and maps
finish reasons onto the same vocabulary (Gemini's ``STOP``, ``MAX_TOKENS``,
``SAFETY``...), setting ``error_code`` when the answer is unusable.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import sys
import weakref
from collections.abc import AsyncGenerator, Awaitable, Callable, Collection, Mapping
from typing import Any, Generic, TypeVar

from .._json import is_object
from .._redact import redact_url
from ..errors import (
    ConfigurationError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelResponseError,
    ModelTimeoutError,
    QuotaExhaustedError,
)
from ._rate_limits import quota_reset
from .base import parse_retry_after

__all__ = [
    "LoopLocal",
    "finish_fields",
    "http_error",
    "cut_body_error",
    "install_hint",
    "is_cut_json",
    "may_be_cut",
    "is_transport_error",
    "lower_headers",
    "other_sdk_error",
    "parse_arguments",
    "read_api_key",
    "require_setting",
    "read_env",
    "redact",
    "status_verdict",
    "transport_error",
    "tried_url",
]

_T = TypeVar("_T")

# Finish reasons after which the answer cannot be used as it is.
UNUSABLE_FINISH_REASONS = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "LANGUAGE",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "MALFORMED_FUNCTION_CALL",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
        "IMAGE_OTHER",
        "NO_IMAGE",
        "UNEXPECTED_TOOL_CALL",
    }
)


def install_hint(sdk: str, extra: str, adapter: str) -> str:
    """The message of the ImportError raised when a provider SDK is missing."""
    return (
        f"the {adapter} model adapter needs the {sdk!r} package; "
        f"install it with: pip install 'steadyflow[{extra}]'"
    )


def read_env(*names: str) -> str | None:
    """The first non-empty environment variable among ``names``."""
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    return None


def read_api_key(explicit: str | None, env_names: tuple[str, ...], adapter: str, model: str) -> str:
    """``explicit`` or the first set variable of ``env_names``; else a clear error.

    Raises:
        ConfigurationError: naming the variables to set (never a key value).
    """
    return require_setting(explicit, env_names, "api_key", adapter, model, "API key")


def require_setting(
    explicit: str | None,
    env_names: tuple[str, ...],
    argument: str,
    adapter: str,
    model: str,
    what: str | None = None,
) -> str:
    """A required setting: ``explicit``, else the first set variable of ``env_names``.

    A cloud endpoint needs more than a key (Azure's endpoint, Vertex AI's
    project, Bedrock's region); a missing one is named with its argument and
    variables when the model is checked or first called, never left to fail
    as an SDK error deep inside a request.

    Raises:
        ConfigurationError: naming ``what`` (default the argument), the
            variables to set and the argument to pass (never a value).
    """
    value = explicit or read_env(*env_names)
    if value:
        return value
    names = " or ".join(env_names)
    raise ConfigurationError(
        f"{adapter} model {model!r} has no {what or argument}: set {names} "
        f"or pass {argument}=... to the adapter"
    )


MIN_SECRET_LENGTH = 8
"""Keys shorter than this are not masked: no provider issues one, and masking a
one-letter test key would turn every ``t`` of a message into ``***``."""


def _secret_pattern(secret: str | None) -> re.Pattern[str] | None:
    """``secret`` with the rest of the token it stands in (word characters and ``-``)."""
    if not secret or len(secret) < MIN_SECRET_LENGTH:
        return None
    return re.compile(rf"[\w-]*{re.escape(secret)}[\w-]*")


def redact(text: str, secret: str | None) -> str:
    """``text`` with every token holding ``secret`` replaced, whole, by ``***``.

    The whole token goes (``x-KEY-old`` becomes ``***``, never ``x-***-old``),
    so what is left reads as words, and only keys of at least
    ``MIN_SECRET_LENGTH`` characters are masked, so a message about
    ``tool_use ids`` stays readable whatever the key.
    """
    pattern = _secret_pattern(secret)
    if pattern is None or secret is None or secret not in text:
        return text
    return pattern.sub("***", text)


def scrub_exception(error: BaseException, secret: str | None) -> None:
    """Remove ``secret`` from the string arguments of ``error`` (in place)."""
    if _secret_pattern(secret) is None:
        return
    error.args = tuple(redact(a, secret) if isinstance(a, str) else a for a in error.args)
    message = getattr(error, "message", None)
    if isinstance(message, str):
        error.message = redact(message, secret)  # type: ignore[attr-defined]


def lower_headers(headers: Any) -> dict[str, str]:
    """Response headers as a plain dict with lower-cased names."""
    if headers is None:
        return {}
    items = headers.items() if hasattr(headers, "items") else headers
    return {str(k).lower(): str(v) for k, v in items}


def status_verdict(
    status: int, headers: Mapping[str, str], codes: Collection[int], honour_should_retry: bool
) -> bool:
    """Whether an HTTP failure is transient.

    ``x-should-retry: true|false`` (OpenAI and Anthropic servers send it)
    overrides the status; otherwise the status must be in ``codes``.
    """
    if honour_should_retry:
        hint = headers.get("x-should-retry", "").strip().lower()
        if hint in ("true", "false"):
            return hint == "true"
    return status in codes


def http_error(
    provider: str,
    model: str,
    status: int,
    headers: Any,
    body: Any,
    detail: str,
    retry_after: float | None = None,
) -> ModelHTTPError:
    """A ``ModelHTTPError`` with the wait hint read from the headers when not given.

    A 429 for a spent quota (``_rate_limits.quota_reset``) is a ``QuotaExhaustedError``.
    """
    lowered = lower_headers(headers)
    hint = retry_after if retry_after is not None else parse_retry_after(lowered)
    message = f"{provider} model {model!r} returned HTTP {status}"
    if detail:
        message += f": {detail}"
    quota, reset = quota_reset(status, body, lowered, hint)
    if quota:
        until = "" if reset is None else f" (resets in {reset / 3600:.1f} h)"
        return QuotaExhaustedError(
            status,
            f"{message}; a quota, not a rate limit: not retried{until}",
            reset_after=reset,
            provider=provider,
            retry_after=hint,
            headers=lowered,
            body=body,
        )
    return ModelHTTPError(
        status, message, provider=provider, retry_after=hint, headers=lowered, body=body
    )


def is_transport_error(error: BaseException) -> bool:
    """Whether ``error`` is a raw httpx/httpx2 transport failure (timeouts included)."""
    return any(isinstance(error, m.TransportError) for m in _http_modules())


def tried_url(error: BaseException) -> str:
    """``" to URL"``: where the failed request went (credentials masked), or ``""``.

    A connection error that names its URL tells a wrong ``*_BASE_URL`` from
    a provider that is down.
    """
    try:
        request = getattr(error, "request", None)
    except RuntimeError:  # httpx: an exception raised without a request
        return ""
    url = getattr(request, "url", None)
    return "" if url is None else f" to {redact_url(str(url))}"


def transport_error(error: BaseException, provider: str, model: str) -> ModelError | None:
    """The project error for a raw httpx/httpx2 transport failure, or None.

    Some SDKs let these escape while a streamed body is read.
    """
    what = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    for module in _http_modules():
        if isinstance(error, module.TimeoutException):
            return ModelTimeoutError(
                f"{provider} model {model!r} did not answer in time ({what})", provider=provider
            )
        if isinstance(error, module.TransportError):
            return ModelConnectionError(
                f"{provider} model {model!r}: connection{tried_url(error)} failed ({what})",
                provider=provider,
            )
    return None


def other_sdk_error(
    error: Exception,
    provider: str,
    model: str,
    secret: str | None,
    unusable: tuple[type[BaseException], ...],
) -> ModelError | None:
    """The project error for an SDK exception that is not an HTTP status, or None.

    A raw transport failure becomes a connection or timeout error; an answer
    the SDK could not read (``unusable`` types, malformed JSON) becomes a
    ``ModelResponseError`` (never retried), scrubbed of ``secret``. None:
    not the provider's doing, re-raise it unchanged.
    """
    mapped = transport_error(error, provider, model)
    if mapped is not None:
        return mapped
    if not isinstance(error, (*unusable, json.JSONDecodeError, UnicodeDecodeError)):
        return None
    scrub_exception(error, secret)
    body = getattr(error, "body", None)
    if isinstance(error, UnicodeDecodeError):
        body = bytes(error.object).decode("utf-8", "replace")
    return ModelResponseError(
        redact(f"{provider} model {model!r} sent an unusable answer: {error}", secret),
        provider=provider,
        body=redact(body, secret) if isinstance(body, str) else body,
    )


def may_be_cut(headers: Any) -> bool:
    """Whether a body that ended cleanly may still have been cut in transit.

    True for a body without a Content-Length (close-delimited, or chunked: a
    proxy may end either cleanly when its upstream drops). A body that
    filled its Content-Length is all the server meant to send: an unfinished
    JSON document in it is a bad answer, not a cut one (a body short of its
    length fails in the HTTP library, as a connection error).
    """
    return "content-length" not in headers


def cut_body_error(error: BaseException, provider: str, model: str) -> ModelError | None:
    """A ``ModelConnectionError`` when ``error`` says a whole JSON body was cut short.

    Only for a body that is one JSON document (not an SSE event's data) and
    had no Content-Length (``may_be_cut``): a document that stops
    mid-way was cut in transit, so the call failed like a dropped connection
    (retryable) rather than with an unusable answer.
    """
    if not isinstance(error, json.JSONDecodeError) or not is_cut_json(error.doc):
        return None
    return ModelConnectionError(
        f"{provider} model {model!r}: the answer ended mid-document (a cut body)",
        provider=provider,
    )


def is_cut_json(doc: str) -> bool:
    """Whether ``doc`` is empty or a JSON text that stops inside a string, object or array.

    Such a body was cut in transit (a clean end of a chunked body before the
    document closed): a connection failure, not an unusable answer.
    """
    depth, in_string, escaped = 0, False, False
    for char in doc:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
    return not doc.strip() or in_string or depth > 0


def _http_modules() -> list[Any]:
    # Only the HTTP libraries an SDK has already imported can have raised.
    return [m for m in (sys.modules.get("httpx2"), sys.modules.get("httpx")) if m is not None]


def parse_arguments(raw: str | None) -> dict[str, Any] | None:
    """Function-call arguments from JSON text; None when they are not a JSON object."""
    if not raw or not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return None
    return value if is_object(value) else None


def finish_fields(reason: str | None, has_content: bool) -> dict[str, Any]:
    """``finish_reason`` and, for an unusable answer, ``error_code``/``error_message``."""
    if reason is None:
        return {}
    fields: dict[str, Any] = {"finish_reason": reason}
    if reason in UNUSABLE_FINISH_REASONS or (not has_content and reason != "STOP"):
        fields["error_code"] = reason
        fields["error_message"] = f"the model stopped with {reason} and gave no usable answer"
    return fields


class LoopLocal(Generic[_T]):
    """One object per running event loop, closed when that loop shuts down.

    A model resolved from the registry lives for the whole process, while
    ``Runner.run`` and test frameworks start a new event loop each time; a
    connection pool opened on one loop must not be used on another. Each
    loop's object is paired with a small started async generator whose
    ``finally`` closes it: ``asyncio.run`` (like any ``asyncio.Runner``)
    closes a loop's async generators before closing the loop, so the pool is
    closed on its own loop instead of leaking sockets.

    A ``given`` object (a client the user passed in) is returned on every
    loop and never closed here: its owner closes it.
    """

    def __init__(
        self,
        factory: Callable[[], _T],
        close: Callable[[_T], Awaitable[None]],
        given: _T | None = None,
    ) -> None:
        self._given = given
        self._factory = factory
        self._close = close
        self._items: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, tuple[_T, AsyncGenerator[None, None]]
        ] = weakref.WeakKeyDictionary()

    def get(self) -> _T:
        """The given object, or the one for the running loop, created on first use."""
        if self._given is not None:
            return self._given
        loop = asyncio.get_running_loop()
        entry = self._items.get(loop)
        if entry is None:
            item = self._factory()
            keeper = self._keep(item)
            # Run the keeper to its ``yield`` now, so the loop tracks it.
            with contextlib.suppress(StopIteration):
                keeper.__anext__().send(None)
            entry = self._items[loop] = (item, keeper)
        return entry[0]

    async def _keep(self, item: _T) -> AsyncGenerator[None, None]:
        try:
            yield
        finally:
            await self._close(item)

    async def aclose(self) -> None:
        """Close the running loop's object now, if there is one."""
        entry = self._items.pop(asyncio.get_running_loop(), None)
        if entry is not None:
            await entry[1].aclose()
