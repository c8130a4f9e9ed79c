"""Anthropic Messages (Claude models).

Built on the official ``anthropic`` SDK (``pip install 'steadyflow[anthropic]'``)
with its own retries switched off (``max_retries=0``) and its own tracing
off (steadyflow traces every attempt itself), so the flow's retry policy is
the only layer that retries and every attempt is counted.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Mapping
from typing import TYPE_CHECKING, Any, cast

try:
    import anthropic as sdk
except ImportError as exc:  # pragma: no cover - exercised without the extra
    from ._http import install_hint

    raise ImportError(install_hint("anthropic", "anthropic", "Anthropic")) from exc

if TYPE_CHECKING:
    from anthropic.types import Message

from ..types import Content
from ._anthropic_answer import Answer, response_from
from ._anthropic_stream import assemble
from ._anthropic_wire import build_params
from ._headers import report_response_headers
from ._http import lower_headers, read_env
from ._stainless import RawResponse, SdkErrors, StainlessLlm, StainlessSdk
from .llm_request import LlmRequest
from .llm_response import LlmResponse

__all__ = ["Anthropic"]

ANTHROPIC_SDK = StainlessSdk(
    client=sdk.AsyncAnthropic,
    http_client=sdk.DefaultAsyncHttpxClient,
    errors=SdkErrors(
        timeout=sdk.APITimeoutError,
        connection=sdk.APIConnectionError,
        status=sdk.APIStatusError,
        api=sdk.APIError,
    ),
    options={"open_telemetry": False},
)


class Anthropic(StainlessLlm[sdk.AsyncAnthropic]):
    """A Claude model behind the Anthropic Messages API.

    Errors sent as an ``error`` event inside a 200 stream count as the HTTP
    status their type stands for (``overloaded_error`` is 529, in the default
    retryable codes).

    Args:
        model: the model name (``claude-sonnet-4-5``).
        api_key: the key; default ``$ANTHROPIC_API_KEY``.
        base_url: the API root; default ``$ANTHROPIC_BASE_URL``, else Anthropic's.
        headers: extra headers sent on every request (a gateway's key or
            route); never logged.
        timeout: seconds per attempt; default the SDK's.
        client: an ``anthropic.AsyncAnthropic`` to use instead of building one;
            it is copied with ``max_retries=0`` (and ``headers``).
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        client: sdk.AsyncAnthropic | None = None,
    ) -> None:
        super().__init__(
            model,
            sdk=ANTHROPIC_SDK,
            provider="anthropic",
            api_key_env=("ANTHROPIC_API_KEY",),
            api_key=api_key,
            base_url=base_url or read_env("ANTHROPIC_BASE_URL"),
            headers=headers,
            timeout=timeout,
            client=client,
        )

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """Call Messages; see ``BaseLlm.generate_content_async``.

        Streamed, text deltas come as partial responses, thinking deltas too
        (as thought parts) when ``thinking.include_thoughts`` is set; the
        complete response always holds the thinking blocks (they must go
        back). The SDK stream is closed however the caller leaves
        (``aclose()``, a ``break``, an error), so the connection is released
        at once and the provider stops generating.
        """
        client = self._clients.get()
        params = build_params(request, self.model)
        with self._map_errors():
            if not stream:
                # No ``stream`` in ``params``: a whole message (the SDK's overloads
                # cannot tell from a dict).
                whole = cast(
                    "Awaitable[RawResponse[Message]]",
                    client.messages.with_raw_response.create(**params),
                )
                message = await self._whole_body(whole)
                yield response_from(self._answer_of(message), self.provider, self.model)
                return
            events = await client.messages.create(**params, stream=True)
            try:
                report_response_headers(events.response.headers)
                await self._refuse_json_body(events.response)
                answer = Answer(blocks=[], usage={})
                thinking = request.config.thinking
                shown = thinking is not None and thinking.include_thoughts
                where = f"anthropic model {self.model!r}"
                async with contextlib.aclosing(assemble(events, answer, where)) as pieces:
                    async for piece in pieces:
                        if shown or not piece.thought:
                            content = Content(role="model", parts=[piece])
                            yield LlmResponse(content=content, partial=True)
                yield response_from(answer, self.provider, self.model)
            finally:
                await events.close()

    def _answer_of(self, message: Any) -> Answer:
        """The ``Answer`` in a non-streamed message; an error payload under 200 is raised."""
        if message.type != "message":
            self._raise_payload(message.model_dump(exclude_none=True), {}, "a message")
        return Answer(
            blocks=[block.model_dump() for block in message.content],
            # The SDK does not validate: a count may be anything, checked by ``usage_from``.
            usage=message.usage.model_dump(warnings=False),
            stop_reason=message.stop_reason,
            response_id=message.id,
            model_version=message.model,
        )

    async def _refuse_json_body(self, response: Any) -> None:
        """A streamed request answered with JSON instead of SSE: an error payload under 200."""
        if "json" not in response.headers.get("content-type", ""):
            return
        raw = await response.aread()
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        self._raise_payload(body, lower_headers(response.headers), "a message")
