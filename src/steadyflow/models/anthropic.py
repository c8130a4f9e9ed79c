"""Anthropic Messages (Claude models).

Built on the official ``anthropic`` SDK (``pip install 'steadyflow[anthropic]'``)
with its own retries switched off (``max_retries=0``) and its own tracing
off (steadyflow traces every attempt itself), so the flow's retry policy is
the only layer that retries and every attempt is counted.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Collection
from typing import Any

try:
    import anthropic as sdk
except ImportError as exc:  # pragma: no cover - exercised without the extra
    from ._http import install_hint

    raise ImportError(install_hint("anthropic", "anthropic", "Anthropic")) from exc

from ..errors import ModelHTTPError, ModelResponseError
from ..types import Content
from ._anthropic_wire import build_params, response_from_blocks, usage_from
from ._http import (
    LoopLocal,
    parse_arguments,
    read_api_key,
    read_env,
    status_verdict,
)
from ._stainless import api_error_retryable, map_api_errors
from .base import BaseLlm
from .llm_request import LlmRequest
from .llm_response import LlmResponse

__all__ = ["Anthropic"]

# Errors sent as an SSE ``error`` event arrive on a 200 response; their body says what they are.
_STREAM_ERROR_STATUS = {
    "overloaded_error": 529,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "invalid_request_error": 400,
}


class Anthropic(BaseLlm):
    """A Claude model behind the Anthropic Messages API.

    Args:
        model: the model name (``claude-sonnet-4-5``).
        api_key: the key; default ``$ANTHROPIC_API_KEY``.
        base_url: the API root; default ``$ANTHROPIC_BASE_URL``, else Anthropic's.
        timeout: seconds per attempt; default the SDK's.
        client: an ``anthropic.AsyncAnthropic`` to use instead of building one;
            it is copied with ``max_retries=0``.
    """

    provider = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float | None = None,
        client: sdk.AsyncAnthropic | None = None,
    ) -> None:
        super().__init__(model)
        self._api_key = api_key
        self._base_url = base_url or read_env("ANTHROPIC_BASE_URL")
        self._timeout = timeout
        self._clients: LoopLocal[sdk.AsyncAnthropic] = LoopLocal(
            self._new_client,
            _close_client,
            client.with_options(max_retries=0) if client is not None else None,
        )
        self._secret: str | None = getattr(client, "api_key", None) or None

    def _new_client(self) -> sdk.AsyncAnthropic:
        key = read_api_key(self._api_key, ("ANTHROPIC_API_KEY",), "Anthropic", self.model)
        self._secret = key
        options: dict[str, Any] = {"api_key": key, "max_retries": 0, "open_telemetry": False}
        if self._base_url:
            options["base_url"] = self._base_url
        if self._timeout is not None:
            options["timeout"] = self._timeout
        return sdk.AsyncAnthropic(**options)

    async def aclose(self) -> None:
        """Close the connection pool this adapter opened on the running loop.

        Pools of loops that ended through ``asyncio.run`` are closed already.
        """
        await self._clients.aclose()

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """Call Messages; see ``BaseLlm.generate_content_async``."""
        client = self._clients.get()
        params = build_params(request, self.model)
        with self._map_errors():
            if not stream:
                message = await client.messages.create(**params)
                blocks = [block.model_dump() for block in message.content]
                usage = usage_from(message.usage, message.usage.output_tokens)
                yield response_from_blocks(blocks, message.stop_reason, usage, message.model)
                return
            events = await client.messages.create(**params, stream=True)
            async for response in _aggregate(events):
                yield response

    def _map_errors(self) -> contextlib.AbstractContextManager[None]:
        """SDK exceptions -> the project's own (``_stainless.map_api_errors``)."""
        return map_api_errors(
            sdk,
            self.provider,
            self.model,
            self._secret,
            status_of=_status_of,
            detail_of=lambda exc: exc.api_message or "",
        )

    def is_exception_retryable(
        self, error: BaseException, retryable_status_codes: Collection[int]
    ) -> bool:
        """Connection errors and timeouts yes; HTTP errors by ``x-should-retry``, then status.

        529 (overloaded) is in the default retryable codes.
        """
        if isinstance(error, ModelHTTPError):
            return status_verdict(error.status_code, error.headers, retryable_status_codes, True)
        verdict = api_error_retryable(sdk, error, retryable_status_codes, status_of=_status_of)
        if verdict is not None:
            return verdict
        if isinstance(error, ModelResponseError):
            return False
        return super().is_exception_retryable(error, retryable_status_codes)


def _status_of(error: Any) -> int:
    """The HTTP status, or for an error event inside a 200 stream, the status it stands for."""
    status: int = error.status_code
    return status if status >= 400 else _STREAM_ERROR_STATUS.get(error.type or "", 500)


async def _aggregate(events: Any) -> AsyncIterator[LlmResponse]:
    """Partial responses for text deltas, then the complete aggregate."""
    blocks: dict[int, dict[str, Any]] = {}
    json_parts: dict[int, list[str]] = {}
    start_usage: Any = None
    output_tokens: int | None = None
    stop_reason: str | None = None
    model_version: str | None = None
    async for event in events:
        kind = event.type
        if kind == "message_start":
            start_usage, model_version = event.message.usage, event.message.model
            output_tokens = event.message.usage.output_tokens
        elif kind == "content_block_start":
            blocks[event.index] = event.content_block.model_dump()
        elif kind == "content_block_delta":
            delta, block = event.delta, blocks.setdefault(event.index, {"type": "text", "text": ""})
            if delta.type == "text_delta" and delta.text:
                block["text"] = (block.get("text") or "") + delta.text
                yield LlmResponse(content=Content.from_text(delta.text, role="model"), partial=True)
            elif delta.type == "input_json_delta":
                json_parts.setdefault(event.index, []).append(delta.partial_json)
            elif delta.type == "thinking_delta":
                block["thinking"] = (block.get("thinking") or "") + delta.thinking
        elif kind == "message_delta":
            stop_reason = event.delta.stop_reason or stop_reason
            output_tokens = event.usage.output_tokens
    for index, pieces in json_parts.items():
        args = parse_arguments("".join(pieces))
        if args is None:
            blocks[index]["type"] = "malformed_tool_use"
        else:
            blocks[index]["input"] = args
    ordered = [blocks[i] for i in sorted(blocks)]
    usage = usage_from(start_usage, output_tokens)
    yield response_from_blocks(ordered, stop_reason, usage, model_version)


async def _close_client(client: Any) -> None:
    await client.close()
