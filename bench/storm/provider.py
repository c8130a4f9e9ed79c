"""A provider with fixed capacity: a token bucket in front of an instant model.

It admits ``capacity`` requests per second (bucket size: one second's worth).
An admitted request is answered after ``service_time``; a request that finds
the bucket empty is refused after ``reject_time`` with HTTP 429 and a
``retry-after`` header in whole seconds, as real rate limiters send it. A
refusal is not free for the provider: it uses up ``reject_cost`` of one
request's capacity, so retries that hammer an overloaded provider eat into
what it can serve.

With ``headers="openai"`` every answer and every 429 also carries OpenAI's
six rate-limit headers, as OpenAI computes them: the limits per minute
(``capacity * 60`` requests, ``TOKENS_PER_MINUTE`` tokens), what is left
right after the request, and the time until the bucket is full again as a
duration (``"850ms"``, ``"1s"``). Tokens are counted (each request costs
``REQUEST_TOKENS``) but never bind. With ``headers="none"`` not even
``retry-after`` is sent: a bare 429, as some gateways and Gemini answer.

Answers' headers go to ``report_response_headers``; code measured at a
commit from before it (``--at``/``--baseline``) has nobody listening, so
they are dropped there (the policies that need them are not run).
"""

from __future__ import annotations

import asyncio
import importlib
import math
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from steadyflow.errors import ModelHTTPError
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse

__all__ = [
    "REQUEST_TOKENS",
    "TOKENS_PER_MINUTE",
    "CapacityProvider",
    "HeaderStyle",
    "ProviderStats",
]

HeaderStyle = Literal["retry-after", "openai", "none"]
TOKENS_PER_MINUTE = 2_000_000
REQUEST_TOKENS = 40


def _no_listener(headers: Mapping[str, str]) -> None:
    """Before ``report_response_headers`` existed, no part of the runtime read headers."""


_report_headers: Callable[[Mapping[str, str]], None] = getattr(
    importlib.import_module("steadyflow.models"), "report_response_headers", _no_listener
)


@dataclass
class ProviderStats:
    """What the provider saw."""

    attempts: int = 0
    admitted: int = 0
    refused: int = 0


class CapacityProvider(BaseLlm):
    """A rate-limited model on the running loop's clock.

    Args:
        capacity: requests admitted per second.
        service_time: seconds an admitted request takes.
        reject_time: seconds until a refused request gets its 429.
        reject_cost: share of one request's capacity a refusal uses up (0 = free).
        headers: what a 429 (and an answer) says: ``retry-after`` only (the
            default), OpenAI's rate-limit headers too, or nothing at all.
    """

    def __init__(
        self,
        *,
        capacity: float,
        service_time: float = 0.5,
        reject_time: float = 0.05,
        reject_cost: float = 0.02,
        headers: HeaderStyle = "retry-after",
    ) -> None:
        super().__init__(model="capacity-limited")
        if capacity <= 0:
            raise ValueError(f"capacity must be > 0 requests per second, got {capacity!r}")
        self.capacity = capacity
        self.service_time = service_time
        self.reject_time = reject_time
        self.reject_cost = reject_cost
        self.headers = headers
        self.stats = ProviderStats()
        self._tokens = capacity
        self._updated = 0.0
        self._tpm_left = float(TOKENS_PER_MINUTE)

    def _refill(self, now: float) -> None:
        elapsed = now - self._updated
        self._tokens = min(self.capacity, self._tokens + elapsed * self.capacity)
        self._tpm_left = min(
            float(TOKENS_PER_MINUTE), self._tpm_left + elapsed * TOKENS_PER_MINUTE / 60
        )
        self._updated = now

    def _rate_limit_headers(self) -> dict[str, str]:
        """OpenAI's six headers for the bucket as it is now."""
        requests_reset = (self.capacity - self._tokens) / self.capacity
        tokens_reset = (TOKENS_PER_MINUTE - self._tpm_left) / (TOKENS_PER_MINUTE / 60)
        return {
            "x-ratelimit-limit-requests": str(round(self.capacity * 60)),
            "x-ratelimit-limit-tokens": str(TOKENS_PER_MINUTE),
            "x-ratelimit-remaining-requests": str(math.floor(self._tokens)),
            "x-ratelimit-remaining-tokens": str(math.floor(self._tpm_left)),
            "x-ratelimit-reset-requests": _duration(requests_reset),
            "x-ratelimit-reset-tokens": _duration(tokens_reset),
        }

    def _retry_after(self) -> int:
        """Whole seconds until a token is back, as a ``retry-after`` header says it."""
        return max(1, math.ceil((1.0 - self._tokens) / self.capacity))

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """Admit and answer, or refuse with 429 and what ``headers`` says."""
        self.stats.attempts += 1
        self._refill(asyncio.get_running_loop().time())
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            self._tpm_left -= REQUEST_TOKENS
            self.stats.admitted += 1
            head = self._rate_limit_headers() if self.headers == "openai" else {}
            await asyncio.sleep(self.service_time)
            _report_headers(head)
            yield LlmResponse.from_text("served")
            return
        self.stats.refused += 1
        hint = self._retry_after()
        self._tokens = max(0.0, self._tokens - self.reject_cost)
        headers: dict[str, str] = {}
        if self.headers != "none":
            headers["retry-after"] = str(hint)
        if self.headers == "openai":
            headers |= self._rate_limit_headers()
        await asyncio.sleep(self.reject_time)
        raise ModelHTTPError(
            429,
            "rate limited",
            retry_after=float(hint) if "retry-after" in headers else None,
            headers=headers,
        )


def _duration(seconds: float) -> str:
    """A reset as OpenAI writes it: ``"6m0s"``, ``"1s"``, ``"850ms"``."""
    if seconds < 1:
        return f"{max(0, round(seconds * 1000))}ms"
    minutes, rest = divmod(seconds, 60)
    text = f"{rest:.3g}s"
    return f"{int(minutes)}m{text}" if minutes else text
