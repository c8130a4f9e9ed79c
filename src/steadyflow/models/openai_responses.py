"""OpenAI's Responses API: reasoning items, and the API its newest models are built for.

Built on the official ``openai`` SDK (``pip install 'steadyflow[openai]'``)
through the same Stainless base as the Chat Completions adapter: the SDK's
retries off, ``headers=`` on every request, redirects never followed, one
error mapping. Exported from ``steadyflow.models.openai``; the registry
resolves ``openai-responses/<model>`` names to it (a separate name prefix
rather than a flag on ``OpenAI``: the two APIs differ in every request and
answer, and a name says which one a stored agent used).

The transcript lives in steadyflow's sessions, so requests are stateless:
``store=False`` by default (OpenAI keeps nothing), no
``previous_response_id``. A reasoning model's reasoning items come back as
``Part(thought=True)`` with their id and ``encrypted_content`` in
``provider_data`` and are sent back, unchanged, to the model that issued them
(``include=["reasoning.encrypted_content"]`` asks for the content when
nothing is stored).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Mapping
from typing import TYPE_CHECKING, Any, cast

try:
    import openai as sdk
except ImportError as exc:  # pragma: no cover - exercised without the extra
    from ._http import install_hint

    raise ImportError(install_hint("openai", "openai", "OpenAIResponses")) from exc

if TYPE_CHECKING:
    from openai.types.responses import Response

from ..errors import ModelConnectionError, ModelHTTPError
from ..types import Content, Part
from ._headers import report_response_headers
from ._http import read_env
from ._openai_sdk import OPENAI_SDK
from ._responses_wire import PROVIDER, build_params, response_from
from ._stainless import RawResponse, StainlessLlm
from .llm_request import LlmRequest
from .llm_response import LlmResponse

__all__ = ["OpenAIResponses"]

_FINISHED = ("response.completed", "response.incomplete")


class OpenAIResponses(StainlessLlm[sdk.AsyncOpenAI]):
    """A model behind the OpenAI Responses API (``openai-responses/<model>`` in the registry).

    Args:
        model: the model name (``gpt-5-mini``); an ``openai-responses/`` prefix is dropped.
        api_key: the key; default ``$OPENAI_API_KEY``.
        base_url: the API root; default ``$OPENAI_BASE_URL``, else OpenAI's own.
        headers: extra headers sent on every request (a gateway's); never logged.
        timeout: seconds per attempt; default the SDK's (10 minutes).
        client: an ``openai.AsyncOpenAI`` to use instead of building one; it is
            copied with ``max_retries=0`` (and ``headers``).
        store: let OpenAI store the responses (its default is to; ours is not
            to, as the session already holds the transcript). With
            ``store=False`` reasoning items travel with their encrypted content.
        service_tier: the tier to ask for (``auto``, ``default``, ``flex``,
            ``priority``); the tier that served is on ``LlmResponse.service_tier``.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        client: sdk.AsyncOpenAI | None = None,
        store: bool = False,
        service_tier: str | None = None,
    ) -> None:
        super().__init__(
            model.removeprefix(f"{PROVIDER}/"),
            sdk=OPENAI_SDK,
            provider=PROVIDER,
            api_key_env=("OPENAI_API_KEY",),
            api_key=api_key,
            base_url=base_url or read_env("OPENAI_BASE_URL"),
            headers=headers,
            timeout=timeout,
            client=client,
        )
        self._store = store
        self._service_tier = service_tier

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """Call ``responses.create``; see ``BaseLlm.generate_content_async``.

        Raises:
            ModelHTTPError: also for a failed response or an ``error`` event in
                the stream, with the status its code stands for.
            ModelConnectionError: the stream ended without ``response.completed``.
        """
        params = build_params(
            request, self.model, store=self._store, service_tier=self._service_tier
        )
        client = self._clients.get()
        with self._map_errors():
            if not stream:
                # No ``stream`` in ``params``: a whole response (the SDK's overloads
                # cannot tell from a dict).
                whole = cast(
                    "Awaitable[RawResponse[Response]]",
                    client.responses.with_raw_response.create(**params),
                )
                response = await self._whole_body(whole)
                if response.status == "failed":
                    raise self._failure(response.error)
                yield response_from(response, self.model)
                return
            events = await client.responses.create(**params, stream=True)
            async with events:
                report_response_headers(events.response.headers)
                async for answer in self._aggregate(events):
                    yield answer

    async def _aggregate(self, events: Any) -> AsyncIterator[LlmResponse]:
        """Partial responses for text and summary deltas, then the complete answer."""
        done: dict[int, Any] = {}
        final: Any = None
        async for event in events:
            kind = event.type
            if kind == "response.output_text.delta" and event.delta:
                text = Content.from_text(event.delta, role="model")
                yield LlmResponse(content=text, partial=True)
            elif kind == "response.reasoning_summary_text.delta" and event.delta:
                thought = Part(thought=True, text=event.delta)
                yield LlmResponse(content=Content(role="model", parts=[thought]), partial=True)
            elif kind == "response.output_item.done":
                done[event.output_index] = event.item
            elif kind in _FINISHED:
                final = event.response
            elif kind == "response.failed":
                raise self._failure(event.response.error)
            elif kind == "error":
                raise self._failure(event)
        if final is None:
            raise ModelConnectionError(
                f"{self.provider} model {self.model!r}: the stream ended before response.completed",
                provider=self.provider,
            )
        output = None if final.output else [done[i] for i in sorted(done)]
        yield response_from(final, self.model, output)

    def _failure(self, error: Any) -> ModelHTTPError:
        """The error for a failed response or an ``error`` event, by its ``code``/``type``."""
        body = error.model_dump() if error is not None else {"message": "the response failed"}
        return self._in_stream_error(body, {}, str(body.get("message") or ""))
