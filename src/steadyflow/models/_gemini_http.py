"""What the Gemini adapter does beneath the SDK, on the httpx client it builds.

google-genai follows redirects (its httpx client sets ``follow_redirects``),
and httpx strips only ``Authorization`` on a cross-origin hop, so the
``x-goog-api-key`` header would go to whatever origin a redirect names. It
also parses an HTTP 200 whose body is an error payload as an empty answer,
and it leaves a streamed response open when its caller stops early (its
generators are nested and closing the outer one does not close the inner).

``ResponseGuard`` is the httpx response hook that fixes all three: a
redirect is an HTTP error (never followed), a non-streamed 200 carrying
``{"error": ...}`` is the error it names, a close-delimited body that stops
inside its JSON is a broken connection (not a malformed answer), and every
response of a call is recorded so the adapter closes it when the call ends,
however it ends.
"""

from __future__ import annotations

import contextvars
import json
from typing import Any

from .._json import is_object
from ..errors import ModelConnectionError, ModelError, ModelResponseError
from ._http import http_error, may_be_cut

__all__ = ["ResponseGuard", "is_cut_json", "open_responses"]

# The responses opened by the current adapter call (set by the call itself).
_OPEN: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "steadyflow_gemini_open_responses", default=None
)


def open_responses() -> list[Any]:
    """Start recording this call's responses; the list is the caller's to close.

    The variable is set in the caller's context and not reset: an async
    generator may be finished from another context, where a reset fails. The
    caller empties the list when it is done, so nothing stays referenced.
    """
    sink: list[Any] = []
    _OPEN.set(sink)
    return sink


class ResponseGuard:
    """The httpx ``response`` event hook of the clients the adapter builds."""

    def __init__(self, provider: str, model: str) -> None:
        self._provider = provider
        self._model = model

    async def __call__(self, response: Any) -> None:
        """Record ``response``; raise for a redirect or an error payload under 200."""
        sink = _OPEN.get()
        if sink is not None:
            sink.append(response)
        status = int(response.status_code)
        if 300 <= status < 400:
            target = response.headers.get("location", "?")
            detail = f"redirect to {target} not followed (the API key stays with its origin)"
            raise http_error(self._provider, self._model, status, response.headers, None, detail)
        if status == 200 and not response.request.url.path.endswith(":streamGenerateContent"):
            await response.aread()
            error = self._error_payload(
                response.content, response.headers, may_be_cut(response.headers)
            )
            if error is not None:
                raise error

    def _error_payload(self, content: bytes, headers: Any, cut: bool) -> ModelError | None:
        try:
            body = json.loads(content)
        except json.JSONDecodeError as exc:
            if cut and is_cut_json(exc):
                return ModelConnectionError(
                    f"{self._provider} model {self._model!r}: the connection closed "
                    f"inside the answer ({exc})",
                    provider=self._provider,
                )
            return None  # the SDK reports a body it cannot read
        except ValueError:
            return None
        error = body.get("error") if is_object(body) and "candidates" not in body else None
        if not is_object(error):
            return None
        message = str(error.get("message") or error.get("status") or "")
        code = error.get("code")
        if isinstance(code, int) and not isinstance(code, bool) and 400 <= code < 600:
            detail = f"{message} (an error payload under HTTP 200)"
            return http_error(self._provider, self._model, code, headers, body, detail)
        return ModelResponseError(
            f"{self._provider} model {self._model!r} answered HTTP 200 with an error "
            f"payload: {message}",
            provider=self._provider,
            body=body,
        )


def is_cut_json(error: json.JSONDecodeError) -> bool:
    """Whether a JSON document failed because it stops early (a cut body).

    Malformed JSON fails somewhere inside the text; a cut one fails at its
    end, or inside a string that never closes.
    """
    return error.pos >= len(error.doc.rstrip()) or error.msg.startswith("Unterminated string")
