"""A provider with fixed capacity: a token bucket in front of an instant model.

It admits ``capacity`` requests per second (bucket size: one second's worth).
An admitted request is answered after ``service_time``; a request that finds
the bucket empty is refused after ``reject_time`` with HTTP 429 and a
``retry-after`` header in whole seconds, as real rate limiters send it. A
refusal is not free for the provider: it uses up ``reject_cost`` of one
request's capacity, so retries that hammer an overloaded provider eat into
what it can serve.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator
from dataclasses import dataclass

from steadyflow.errors import ModelHTTPError
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse

__all__ = ["CapacityProvider", "ProviderStats"]


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
    """

    def __init__(
        self,
        *,
        capacity: float,
        service_time: float = 0.5,
        reject_time: float = 0.05,
        reject_cost: float = 0.02,
    ) -> None:
        super().__init__(model="capacity-limited")
        if capacity <= 0:
            raise ValueError(f"capacity must be > 0 requests per second, got {capacity!r}")
        self.capacity = capacity
        self.service_time = service_time
        self.reject_time = reject_time
        self.reject_cost = reject_cost
        self.stats = ProviderStats()
        self._tokens = capacity
        self._updated = 0.0

    def _refill(self, now: float) -> None:
        self._tokens = min(self.capacity, self._tokens + (now - self._updated) * self.capacity)
        self._updated = now

    def _retry_after(self) -> int:
        """Whole seconds until a token is back, as a ``retry-after`` header says it."""
        return max(1, math.ceil((1.0 - self._tokens) / self.capacity))

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """Admit and answer, or refuse with 429 and a wait hint."""
        self.stats.attempts += 1
        self._refill(asyncio.get_running_loop().time())
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            self.stats.admitted += 1
            await asyncio.sleep(self.service_time)
            yield LlmResponse.from_text("served")
            return
        self.stats.refused += 1
        hint = self._retry_after()
        self._tokens = max(0.0, self._tokens - self.reject_cost)
        await asyncio.sleep(self.reject_time)
        raise ModelHTTPError(
            429, "rate limited", retry_after=float(hint), headers={"retry-after": str(hint)}
        )
