"""Deadlines on one attempt: as a whole, until its first response, and between two responses.

An HTTP client's timeout bounds each read, so a server that sends a byte
every few hundred milliseconds keeps an attempt alive for ever. The retry
loop bounds the attempt itself instead, from the request to the last
response (time the caller spends handling streamed chunks counts too): the
bound is ``BaseLlm.timeout`` or what remains of ``RetryConfig.total_timeout``,
whichever is shorter. When it passes, the provider's stream is cancelled
where it waits and closed, and the attempt fails with ``ModelTimeoutError``:
retried by the usual rules when it had yielded nothing.

Two more bounds are opt-in (``RetryConfig``): ``first_byte_timeout``
bounds the wait for the first response (for models with no ``timeout`` of
their own: a non-streamed call stalls there), and ``stream_idle_timeout``
bounds each wait for the next response of a stream, the first included: a
stream that goes silent is cut, however long the whole attempt may take.
Each fails the attempt with ``ModelTimeoutError`` naming the bound.

The deadlines run on the event loop's timer (a wait for a socket cannot be
cut by a fake clock); the remaining ``total_timeout`` is computed on the
loop's injectable clock, like every other duration of the call.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

from .._aio import aclose
from ..errors import ModelTimeoutError
from ..models.llm_response import LlmResponse

__all__ = ["Limits", "attempt_bound", "within"]


def attempt_bound(
    timeout: float | None, total_timeout: float | None, elapsed: float
) -> float | None:
    """Seconds the next attempt may take: ``timeout``, or less when ``total_timeout`` is nearer."""
    if total_timeout is None:
        return timeout
    left = max(total_timeout - elapsed, 0.0)
    return left if timeout is None or left < timeout else timeout


@dataclass(frozen=True, slots=True)
class Limits:
    """The bounds of one attempt, in seconds; None = not bounded that way.

    Attributes:
        whole: from the request to the last response.
        first: from the request to the first response.
        idle: each wait for the next response (the first included).
    """

    whole: float | None = None
    first: float | None = None
    idle: float | None = None


def _next_deadline(
    limits: Limits, start: float, now: float, first: bool
) -> tuple[float | None, str]:
    """The nearest deadline for the next response (None: none), and how to say it was missed."""
    options: list[tuple[float, str]] = []
    if limits.whole is not None:
        options.append((start + limits.whole, f"finish the attempt within {limits.whole:.3g}s"))
    if first and limits.first is not None:
        options.append((start + limits.first, f"send a first response within {limits.first:.3g}s"))
    if limits.idle is not None:
        what = "first" if first else "next"
        options.append(
            (now + limits.idle, f"send its {what} response within {limits.idle:.3g}s (stalled)")
        )
    return min(options) if options else (None, "")


async def within(
    responses: AsyncIterator[LlmResponse], limits: Limits, *, provider: str, model: str
) -> AsyncIterator[LlmResponse]:
    """``responses``, failing with ``ModelTimeoutError`` once one of ``limits`` is passed.

    Closing this generator closes ``responses`` too.
    """
    loop = asyncio.get_running_loop()
    start = loop.time()
    first = True
    try:
        while True:
            deadline, missed = _next_deadline(limits, start, loop.time(), first)
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
                    f"{provider} model {model} did not {missed}", provider=provider
                ) from error
            first = False
            yield response
    finally:
        await aclose(responses)
