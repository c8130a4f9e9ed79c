"""Anthropic Messages (Claude models).

Built on the official ``anthropic`` SDK (``pip install 'steadyflow[anthropic]'``)
with its own retries switched off (``max_retries=0``) and its own tracing
off (steadyflow traces every attempt itself), so the flow's retry policy is
the only layer that retries and every attempt is counted.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

try:
    import anthropic as sdk
except ImportError as exc:  # pragma: no cover - exercised without the extra
    from ._http import install_hint

    raise ImportError(install_hint("anthropic", "anthropic", "Anthropic")) from exc

from ..types import Content
from ._anthropic_wire import build_params, response_from_blocks, usage_from
from ._http import parse_arguments, read_env
from ._stainless import SdkErrors, StainlessLlm, StainlessSdk
from .llm_request import LlmRequest
from .llm_response import LlmResponse

__all__ = ["Anthropic"]

_SDK = StainlessSdk(
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
            sdk=_SDK,
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
