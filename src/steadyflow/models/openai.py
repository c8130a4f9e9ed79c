"""OpenAI Chat Completions, and any server that speaks it (Groq, vLLM, Ollama).

Built on the official ``openai`` SDK (``pip install 'steadyflow[openai]'``)
with its own retries switched off (``max_retries=0``): the flow's retry
policy is the only layer that retries, so every attempt is counted.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Collection
from typing import Any, ClassVar

try:
    import openai as sdk
except ImportError as exc:  # pragma: no cover - exercised without the extra
    from ._http import install_hint

    raise ImportError(install_hint("openai", "openai", "OpenAI")) from exc

from ..errors import ModelHTTPError, ModelResponseError
from ..types import Content
from ._http import (
    LoopLocal,
    read_api_key,
    read_env,
    status_verdict,
)
from ._openai_wire import assemble, build_params, response_from_message, usage_from
from ._stainless import api_error_retryable, map_api_errors
from .base import BaseLlm
from .llm_request import LlmRequest
from .llm_response import LlmResponse

__all__ = ["Groq", "OpenAI"]

_REASONING_MODEL = re.compile(r"o\d.*|gpt-5.*")


class OpenAI(BaseLlm):
    """A model behind the OpenAI Chat Completions API.

    Args:
        model: the model name (``gpt-4o-mini``); an ``openai/`` prefix is dropped.
        api_key: the key; default ``$OPENAI_API_KEY``. Local OpenAI-compatible
            servers accept any non-empty value.
        base_url: the API root (``http://localhost:11434/v1`` for Ollama);
            default ``$OPENAI_BASE_URL``, else OpenAI's own.
        timeout: seconds per attempt; default the SDK's (10 minutes).
        client: an ``openai.AsyncOpenAI`` to use instead of building one; it is
            copied with ``max_retries=0``.
    """

    provider = "openai"
    api_key_env: ClassVar[tuple[str, ...]] = ("OPENAI_API_KEY",)
    base_url_env: ClassVar[tuple[str, ...]] = ("OPENAI_BASE_URL",)
    default_base_url: ClassVar[str | None] = None

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float | None = None,
        client: sdk.AsyncOpenAI | None = None,
    ) -> None:
        super().__init__(model.removeprefix("openai/"))
        self._api_key = api_key
        self._base_url = base_url or read_env(*self.base_url_env) or self.default_base_url
        self._timeout = timeout
        self._clients: LoopLocal[sdk.AsyncOpenAI] = LoopLocal(
            self._new_client,
            _close_client,
            client.with_options(max_retries=0) if client is not None else None,
        )
        self._secret: str | None = getattr(client, "api_key", None) or None

    def _new_client(self) -> sdk.AsyncOpenAI:
        key = read_api_key(self._api_key, self.api_key_env, type(self).__name__, self.model)
        self._secret = key
        options: dict[str, Any] = {"api_key": key, "base_url": self._base_url, "max_retries": 0}
        if self._timeout is not None:
            options["timeout"] = self._timeout
        return sdk.AsyncOpenAI(**options)

    async def aclose(self) -> None:
        """Close the connection pool this adapter opened on the running loop.

        Pools of loops that ended through ``asyncio.run`` are closed already.
        """
        await self._clients.aclose()

    def _max_tokens_name(self) -> str:
        official = self._base_url is None or "api.openai.com" in self._base_url
        if official or _REASONING_MODEL.fullmatch(self.model):
            return "max_completion_tokens"
        return "max_tokens"

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """Call Chat Completions; see ``BaseLlm.generate_content_async``."""
        client = self._clients.get()
        params = build_params(request, self.model, self._max_tokens_name())
        with self._map_errors():
            if not stream:
                completion = await client.chat.completions.create(**params)
                yield response_from_message(completion)
                return
            chunks = await client.chat.completions.create(
                **params, stream=True, stream_options={"include_usage": True}
            )
            async for response in _aggregate(chunks):
                yield response

    def _map_errors(self) -> contextlib.AbstractContextManager[None]:
        """SDK exceptions -> the project's own (``_stainless.map_api_errors``)."""
        return map_api_errors(
            sdk,
            self.provider,
            self.model,
            self._secret,
            status_of=lambda exc: exc.status_code,
            detail_of=lambda exc: _detail(exc.body) or exc.message,
        )

    def is_exception_retryable(
        self, error: BaseException, retryable_status_codes: Collection[int]
    ) -> bool:
        """Connection errors and timeouts yes; HTTP errors by ``x-should-retry``, then status."""
        if isinstance(error, ModelHTTPError):
            return status_verdict(error.status_code, error.headers, retryable_status_codes, True)
        verdict = api_error_retryable(
            sdk, error, retryable_status_codes, status_of=lambda exc: exc.status_code
        )
        if verdict is not None:
            return verdict
        if isinstance(error, ModelResponseError):
            return False
        return super().is_exception_retryable(error, retryable_status_codes)


class Groq(OpenAI):
    """A model on Groq's OpenAI-compatible API (``groq/<model>`` in the registry).

    Reads ``$GROQ_API_KEY`` and ``$GROQ_BASE_URL``.
    """

    provider = "groq"
    api_key_env = ("GROQ_API_KEY",)
    base_url_env = ("GROQ_BASE_URL",)
    default_base_url = "https://api.groq.com/openai/v1"

    def __init__(self, model: str, **options: Any) -> None:
        super().__init__(model.removeprefix("groq/"), **options)


def _detail(body: Any) -> str:
    if isinstance(body, dict):
        message = body.get("message")
        if isinstance(message, str):
            return message
    return ""


async def _aggregate(chunks: Any) -> AsyncIterator[LlmResponse]:
    """Partial responses for text deltas, then the complete aggregate."""
    text: list[str] = []
    refusal: list[str] = []
    calls: dict[int, list[Any]] = {}
    finish: str | None = None
    usage = None
    model_version: str | None = None
    async for chunk in chunks:
        model_version = chunk.model or model_version
        if chunk.usage is not None:
            usage = usage_from(chunk.usage)
        for choice in chunk.choices[:1]:
            delta = choice.delta
            if delta.content:
                text.append(delta.content)
                yield LlmResponse(
                    content=Content.from_text(delta.content, role="model"), partial=True
                )
            refusal.append(getattr(delta, "refusal", None) or "")
            for tool_call in delta.tool_calls or []:
                slot = calls.setdefault(tool_call.index, [None, "", ""])
                slot[0] = tool_call.id or slot[0]
                if tool_call.function is not None:
                    slot[1] += tool_call.function.name or ""
                    slot[2] += tool_call.function.arguments or ""
            finish = choice.finish_reason or finish
    ordered = [tuple(calls[i]) for i in sorted(calls)]
    yield assemble("".join(text), ordered, finish, usage, model_version, "".join(refusal))


async def _close_client(client: Any) -> None:
    await client.close()
