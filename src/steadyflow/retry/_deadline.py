"""A deadline on one attempt: the adapter's ``timeout`` and what is left of ``total_timeout``.

An HTTP client's timeout bounds each read, so a server that sends a byte
every few hundred milliseconds keeps an attempt alive for ever. The retry
loop bounds the attempt itself instead, from the request to the last
response (time the caller spends handling streamed chunks counts too): the
bound is ``BaseLlm.timeout`` or what remains of ``RetryConfig.total_timeout``,
whichever is shorter. When it passes, the provider's stream is cancelled
where it waits and closed, and the attempt fails with ``ModelTimeoutError``:
retried by the usual rules when it had yielded nothing.

The deadline runs on the event loop's timer (a wait for a socket cannot be
cut by a fake clock); the remaining ``total_timeout`` is computed on the
loop's injectable clock, like every other duration of the call.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from .._aio import aclose
from ..errors import ModelTimeoutError
from ..models.llm_response import LlmResponse

__all__ = ["attempt_bound", "within"]


def attempt_bound(
    timeout: float | None, total_timeout: float | None, elapsed: float
) -> float | None:
    """Seconds the next attempt may take: ``timeout``, or less when ``total_timeout`` is nearer."""
    if total_timeout is None:
        return timeout
    left = max(total_timeout - elapsed, 0.0)
    return left if timeout is None or left < timeout else timeout


async def within(
    responses: AsyncIterator[LlmResponse], seconds: float, *, provider: str, model: str
) -> AsyncIterator[LlmResponse]:
    """``responses``, failing with ``ModelTimeoutError`` once ``seconds`` have passed.

    Closing this generator closes ``responses`` too.
    """
    deadline = asyncio.get_running_loop().time() + seconds
    try:
        while True:
            limit = asyncio.timeout_at(deadline)
            try:
                async with limit:
                    response = await anext(responses)
            except StopAsyncIteration:
                return
            except TimeoutError as error:
                if not limit.expired():
                    raise  # the provider's own TimeoutError, not our deadline
                raise ModelTimeoutError(
                    f"{provider} model {model} did not finish the attempt within {seconds:.3g}s",
                    provider=provider,
                ) from error
            yield response
    finally:
        await aclose(responses)
