"""OpenAI Chat Completions, and any server that speaks it (Groq, vLLM, Ollama).

``OpenAIResponses``, the adapter for OpenAI's Responses API, is exported here
too (it lives in ``openai_responses``).

Built on the official ``openai`` SDK (``pip install 'steadyflow[openai]'``)
with its own retries switched off (``max_retries=0``): the flow's retry
policy is the only layer that retries, so every attempt is counted.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

try:
    import openai as sdk
except ImportError as exc:  # pragma: no cover - exercised without the extra
    from ._http import install_hint

    raise ImportError(install_hint("openai", "openai", "OpenAI")) from exc

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletion

from ._headers import report_response_headers
from ._http import read_env
from ._openai_sdk import OPENAI_SDK
from ._openai_stream import aggregate
from ._openai_wire import build_params, response_from_message
from ._responses_wire import is_reasoning_model
from ._stainless import RawResponse, StainlessLlm
from .llm_request import LlmRequest
from .llm_response import LlmResponse
from .openai_responses import OpenAIResponses

__all__ = ["GROQ", "OPENAI", "Groq", "OpenAI", "OpenAICompatible", "OpenAIResponses"]


@dataclass(frozen=True)
class OpenAICompatible:
    """Who serves a Chat Completions API: the provider's name, where its key and root are.

    Attributes:
        provider: the short name in logs, traces and budget keys ("groq").
        api_key_env: environment variables holding the key, first set wins.
        base_url_env: environment variables holding the API root.
        default_base_url: the root when none is given (None: the SDK's, OpenAI's own).
        prefix: the registry prefix dropped from a model name (once: ``groq/openai/gpt-oss``
            is sent as ``openai/gpt-oss``).
    """

    provider: str
    api_key_env: tuple[str, ...]
    base_url_env: tuple[str, ...]
    default_base_url: str | None
    prefix: str


OPENAI = OpenAICompatible("openai", ("OPENAI_API_KEY",), ("OPENAI_BASE_URL",), None, "openai/")
"""OpenAI's own endpoint: ``$OPENAI_API_KEY``, ``$OPENAI_BASE_URL``, names prefixed ``openai/``."""
GROQ = OpenAICompatible(
    "groq", ("GROQ_API_KEY",), ("GROQ_BASE_URL",), "https://api.groq.com/openai/v1", "groq/"
)
"""Groq's OpenAI-compatible endpoint: ``$GROQ_API_KEY``, names prefixed ``groq/``."""


class OpenAI(StainlessLlm[sdk.AsyncOpenAI]):
    """A model behind the OpenAI Chat Completions API (or any server that speaks it).

    Args:
        model: the model name (``gpt-4o-mini``); the endpoint's prefix
            (``openai/``) is dropped once.
        api_key: the key; default ``$OPENAI_API_KEY``. Local OpenAI-compatible
            servers accept any non-empty value.
        base_url: the API root (``http://localhost:11434/v1`` for Ollama);
            default ``$OPENAI_BASE_URL``, else OpenAI's own.
        headers: extra headers sent on every request (a gateway's key or
            route); never logged.
        timeout: seconds per attempt; default the SDK's (10 minutes).
        client: an ``openai.AsyncOpenAI`` to use instead of building one; it is
            copied with ``max_retries=0`` (and ``headers``).
        endpoint: who serves the API (``OPENAI``, ``GROQ``, or your own
            ``OpenAICompatible``): provider name, key and root variables.
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
        endpoint: OpenAICompatible = OPENAI,
    ) -> None:
        super().__init__(
            model.removeprefix(endpoint.prefix),
            sdk=OPENAI_SDK,
            provider=endpoint.provider,
            api_key_env=endpoint.api_key_env,
            api_key=api_key,
            base_url=base_url or read_env(*endpoint.base_url_env) or endpoint.default_base_url,
            headers=headers,
            timeout=timeout,
            client=client,
        )

    def _max_tokens_name(self) -> str:
        official = self._base_url is None or "api.openai.com" in self._base_url
        if official or is_reasoning_model(self.model):
            return "max_completion_tokens"
        return "max_tokens"

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """Call Chat Completions; see ``BaseLlm.generate_content_async``.

        A streamed call closes its HTTP stream when it ends, however it ends
        (a consumer that stops early included), so the provider stops
        generating at once instead of at garbage collection.
        """
        client = self._clients.get()
        params = build_params(request, self.model, self._max_tokens_name(), self.provider)
        with self._map_errors():
            if not stream:
                # With the parameters as a dict the SDK's overloads cannot tell a
                # streamed call from a whole one: this one is whole (no ``stream``).
                whole = cast(
                    "Awaitable[RawResponse[ChatCompletion]]",
                    client.chat.completions.with_raw_response.create(**params),
                )
                completion = await self._whole_body(whole)
                self._check_completion(completion)
                yield response_from_message(completion, self.provider)
                return
            chunks = await client.chat.completions.create(
                **params, stream=True, stream_options={"include_usage": True}
            )
            try:
                report_response_headers(chunks.response.headers)
                async for response in aggregate(chunks, self.provider, self.model):
                    yield response
            finally:
                await chunks.close()

    def _check_completion(self, completion: ChatCompletion) -> None:
        """Raise for a 200 answer that is an error payload, or no chat completion at all."""
        # The SDK builds the completion without validating it: ``choices`` is
        # missing from a payload that is not a chat completion, whatever its type says.
        if getattr(completion, "error", None) is not None or completion.choices is None:  # pyright: ignore[reportUnnecessaryComparison]
            self._raise_payload(completion.model_dump(exclude_none=True), {}, "a chat completion")


def Groq(model: str, **options: Any) -> OpenAI:
    """A model on Groq's OpenAI-compatible API (``groq/<model>`` in the registry).

    The OpenAI adapter with the ``GROQ`` endpoint: reads ``$GROQ_API_KEY`` and
    ``$GROQ_BASE_URL``; ``Groq("openai/gpt-oss-120b")`` sends
    ``openai/gpt-oss-120b``. Takes the same options as ``OpenAI``.
    """
    return OpenAI(model, endpoint=GROQ, **options)
