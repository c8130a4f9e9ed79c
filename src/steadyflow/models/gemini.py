"""Gemini (and Gemma) models on the Gemini Developer API.

Built on the official ``google-genai`` SDK (``pip install 'steadyflow[gemini]'``)
with every hidden retry switched off: one HTTP attempt per request
(``HttpRetryOptions(attempts=1)``, which also stops the SDK's implicit
aiohttp reconnects), no automatic stream continuation and no automatic
function calling. The flow's retry policy is the only layer that retries.
Redirects are not followed (the key must not reach another origin), and a
call's HTTP responses are closed when it ends, also when its caller stops
reading early (see ``_gemini_http``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Collection, Generator, Mapping
from typing import Any

try:
    import google.genai as genai  # not "from google import": protobuf's stubs own "google"
    from google.genai import errors as sdk_errors
    from google.genai import types as gt
except ImportError as exc:  # pragma: no cover - exercised without the extra
    from ._http import install_hint

    raise ImportError(install_hint("google-genai", "gemini", "Gemini")) from exc

from ..errors import ModelConnectionError, ModelHTTPError, ModelResponseError
from ._gemini_answer import aggregate, complete
from ._gemini_http import ResponseGuard, is_cut_json, open_responses
from ._gemini_wire import PROVIDER, build_config, contents_from, retry_delay
from ._headers import report_response_headers
from ._http import (
    LoopLocal,
    http_error,
    is_transport_error,
    other_sdk_error,
    read_api_key,
    read_env,
    redact,
    scrub_exception,
)
from ._instruction_turn import conversation
from .base import BaseLlm
from .llm_request import LlmRequest
from .llm_response import LlmResponse

__all__ = ["Gemini"]

_KEY_ENV = ("GOOGLE_API_KEY", "GEMINI_API_KEY")
_BASE_URL_ENV = ("GOOGLE_GEMINI_BASE_URL", "GEMINI_BASE_URL")


class Gemini(BaseLlm):
    """A Gemini or Gemma model behind the Gemini Developer API.

    Args:
        model: the model name (``gemini-2.5-flash``).
        api_key: the key; default ``$GOOGLE_API_KEY``, then ``$GEMINI_API_KEY``.
        base_url: the API root; default ``$GOOGLE_GEMINI_BASE_URL`` or
            ``$GEMINI_BASE_URL``, else Google's.
        headers: extra HTTP headers sent with every request (for a gateway);
            never logged.
        timeout: seconds per attempt; default the SDK's (none).
        client: a ``google.genai.Client`` to use instead of building one; each
            request still overrides its retries to a single attempt. Its own
            httpx settings stay (redirects, closing of abandoned streams).
    """

    provider = PROVIDER

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        client: genai.Client | None = None,
    ) -> None:
        super().__init__(model)
        self._api_key = api_key
        self._base_url = base_url or read_env(*_BASE_URL_ENV)
        self._headers = dict(headers or {})
        self._timeout = timeout
        self.timeout = timeout  # the whole attempt, enforced by the retry loop
        self._clients: LoopLocal[genai.Client] = LoopLocal(self._new_client, _close_client, client)
        self._secret: str | None = getattr(getattr(client, "_api_client", None), "api_key", None)

    def check_configuration(self) -> None:
        """Raise ``ConfigurationError`` when no API key is given or set in the environment."""
        if self._secret is None:
            read_api_key(self._api_key, _KEY_ENV, "Gemini", self.model)

    def _credentials(self) -> dict[str, Any]:
        """The client's credential options: the API key, read now so a missing one is named.

        Vertex AI's adapter overrides it (project, location, Google credentials).
        """
        key = read_api_key(self._api_key, _KEY_ENV, "Gemini", self.model)
        self._secret = key
        return {"api_key": key, "vertexai": False}

    def _new_client(self) -> genai.Client:
        credentials = self._credentials()
        hooks = {"response": [ResponseGuard(self.provider, self.model)]}
        options = gt.HttpOptions(
            base_url=self._base_url,
            async_client_args={"follow_redirects": False, "event_hooks": hooks},
            client_args={"follow_redirects": False},
        )
        return genai.Client(**credentials, http_options=options)

    async def aclose(self) -> None:
        """Close the connection pool this adapter opened on the running loop.

        Pools of loops that ended through ``asyncio.run`` are closed already.
        """
        await self._clients.aclose()

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """Call ``generateContent`` (or its SSE twin); see ``BaseLlm``.

        However the call ends (finished, failed, or closed early by its
        caller), its HTTP responses are closed before this generator is.
        """
        models = self._clients.get().aio.models
        contents = contents_from(conversation(request.contents), self.model)
        http = {"headers": self._headers} if self._headers else {}
        config = build_config(request, self._timeout, self.model, http)
        responses = open_responses()
        chunks: Any = None
        try:
            with self._map_errors(stream):
                # google-genai's ``contents`` union names ``PIL.Image``, unknown
                # without Pillow installed: its stubs, not this call, are partly unknown.
                if not stream:
                    answer = await models.generate_content(  # pyright: ignore[reportUnknownMemberType]
                        model=self.model, contents=contents, config=config
                    )
                    _report_head(responses)
                    yield complete([answer], self.model, stream=False)
                    return
                chunks = await models.generate_content_stream(  # pyright: ignore[reportUnknownMemberType]
                    model=self.model, contents=contents, config=config
                )
                _report_head(responses)
                async for response in aggregate(chunks, self.model):
                    yield response
        finally:
            for response in responses:
                await response.aclose()
            responses.clear()
            if chunks is not None:
                await chunks.aclose()

    @contextlib.contextmanager
    def _map_errors(self, stream: bool) -> Generator[None, None, None]:
        """The one place where SDK exceptions become the project's own.

        An SSE event cut short (the stream ended inside it) is a broken
        stream; a non-streamed body is checked for that in ``ResponseGuard``.
        """
        name, model, secret = self.provider, self.model, self._secret
        try:
            yield
        except sdk_errors.APIError as exc:
            scrub_exception(exc, secret)
            body = _details(exc)
            headers = getattr(_response(exc), "headers", None)
            hint = retry_delay(body)
            detail = redact(exc.message or exc.status or "", secret)
            status = exc.code if isinstance(exc.code, int) and exc.code >= 400 else 500
            raise http_error(name, model, status, headers, body, detail, hint) from exc
        except Exception as exc:
            if stream and _cut_event(exc):
                raise ModelConnectionError(
                    f"{name} model {model!r}: the stream ended inside an event",
                    provider=name,
                ) from exc
            mapped = other_sdk_error(
                exc, name, model, secret, (sdk_errors.UnknownApiResponseError,)
            )
            if mapped is None:
                raise
            raise mapped from exc

    def is_exception_retryable(
        self, error: BaseException, retryable_status_codes: Collection[int]
    ) -> bool:
        """Connection errors and timeouts yes; HTTP errors by status."""
        if isinstance(error, ModelHTTPError):
            return error.status_code in retryable_status_codes
        if isinstance(error, sdk_errors.APIError):
            return error.code in retryable_status_codes
        if is_transport_error(error):
            return True
        if isinstance(error, ModelResponseError | sdk_errors.UnknownApiResponseError):
            return False
        return super().is_exception_retryable(error, retryable_status_codes)

    def retry_after(self, error: BaseException) -> float | None:
        """``RetryInfo.retryDelay`` from the error body, else the base rule (headers)."""
        if isinstance(error, sdk_errors.APIError):
            hint = retry_delay(_details(error))
            if hint is not None:
                return hint
        return super().retry_after(error)


def _report_head(responses: list[Any]) -> None:
    """The call's answer headers to the retry loop (its last HTTP response's)."""
    if responses:
        report_response_headers(getattr(responses[-1], "headers", None))


def _cut_event(error: Exception) -> bool:
    """Whether ``error`` is an SSE event that could not be parsed because it stops early."""
    decode = error if isinstance(error, json.JSONDecodeError) else error.__cause__
    return isinstance(decode, json.JSONDecodeError) and is_cut_json(decode)


async def _close_client(client: Any) -> None:
    await client.aio.aclose()


# google-genai assigns ``APIError.details`` and ``.response`` without declaring
# them (their inferred types name classes of HTTP libraries not installed here),
# so a strict checker reads them as partly unknown: these two say what they are.
def _details(error: sdk_errors.APIError) -> Any:
    """The error's decoded JSON body."""
    return error.details  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]


def _response(error: sdk_errors.APIError) -> object:
    """The HTTP response the error came with (or ``None``)."""
    return error.response  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
