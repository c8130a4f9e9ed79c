"""The retry loop's side of pacing: what one call asks the pacer, and tells it.

``RetryConfig.pacer`` is a shared ``Pacer``; the loop in ``_executor.py``
talks to it only through ``PacedCall``: ``admit`` before each attempt (the
first, and each retry with its backoff as the earliest time), ``release``
when an admitted attempt is not sent after all (the call budget refused it,
the breaker is open, the call was cancelled during the wait), ``ended``
after each sent attempt with what the provider said: the answer's headers
(reported by the adapter through ``models.report_response_headers`` while
``listen`` is current), the error's headers and status, a spent quota, the
usage. An attempt costs one request and its estimated tokens: the
history module's estimate of the request's contents and system instruction,
plus its ``max_output_tokens``.

A pacer that raises (a bug in a user's implementation, Redis gone) is logged
and ignored: pacing never fails a call by itself.
"""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator, Mapping

from .._aio import aclose
from ..errors import ModelError, PacingTimeoutError, QuotaExhaustedError, error_chain
from ..history.tokens import content_tokens, text_tokens
from ..models._headers import headers_reported_to
from ..models.base import status_of
from ..models.llm_request import LlmRequest
from ..models.llm_response import LlmResponse
from ._protocols import PaceOutcome, PacePass, Pacer

__all__ = ["PacedCall", "request_cost"]

logger = logging.getLogger("steadyflow.retry")


def request_cost(request: LlmRequest) -> dict[str, float]:
    """What one attempt of ``request`` is charged, by dimension."""
    config = request.config
    estimate = sum(content_tokens(content) for content in request.contents)
    if config.system_instruction:
        estimate += text_tokens(config.system_instruction)
    output = config.max_output_tokens or 0
    return {
        "requests": 1.0,
        "tokens": float(estimate + output),
        "input_tokens": float(estimate),
        "output_tokens": float(output),
    }


def _failure_outcome(error: BaseException) -> PaceOutcome:
    headers: Mapping[str, str] = {}
    status: int | None = None
    for link in error_chain(error):
        if isinstance(link, QuotaExhaustedError):
            reset = math.inf if link.reset_after is None else link.reset_after
            return PaceOutcome(headers=link.headers, quota_reset=reset)
        if isinstance(link, ModelError) and link.headers and not headers:
            headers = link.headers
        if status is None:
            status = status_of(link)
    return PaceOutcome(headers=headers, throttled=status == 429)


def _usage(response: LlmResponse | None) -> dict[str, float] | None:
    usage = None if response is None else response.usage_metadata
    if usage is None:
        return None
    done = float(usage.input_tokens), float(usage.output_tokens)
    return {"tokens": done[0] + done[1], "input_tokens": done[0], "output_tokens": done[1]}


class PacedCall:
    """One logical call's dealings with the pacer, for one model.

    Args:
        pacer: the shared pacer.
        key: the call's key (``provider:model``).
        request: the request, to estimate its tokens.
        model: the model's name, for logs.
    """

    __slots__ = ("_cost", "_headers", "_last", "_model", "_pacer", "key", "ticket")

    def __init__(self, pacer: Pacer, key: str, request: LlmRequest, model: str) -> None:
        self._pacer, self.key, self._model = pacer, key, model
        self._cost = request_cost(request)
        self.ticket: PacePass | None = None
        self._headers: Mapping[str, str] = {}
        self._last: LlmResponse | None = None

    async def admit(self, *, earliest: float, left: float | None, first: bool = False) -> PacePass:
        """Ask for a slot ``earliest`` seconds from now or later, within ``left`` seconds.

        A first attempt's wait is logged here (INFO, ``paced`` in the record);
        a retry's is part of the retry's own WARNING.
        """
        latest = math.inf if left is None else max(0.0, left)
        try:
            ticket = await self._pacer.admit(self.key, self._cost, earliest=earliest, latest=latest)
        except Exception:
            logger.exception("%r.admit failed for %s; sending unpaced", self._pacer, self.key)
            ticket = PacePass(self.key, admitted=True, wait=earliest)
        self.ticket = ticket if ticket.admitted else None
        if first and ticket.admitted and ticket.wait > 0:
            logger.info(
                "model call paced: model=%s key=%s wait=%.3fs",
                self._model,
                self.key,
                ticket.wait,
                extra={"model": self._model, "pacer_key": self.key, "paced": ticket.wait},
            )
        return ticket

    def refusal(self, ticket: PacePass, left: float | None) -> ModelError:
        """The error for a first attempt the pacer would not admit in time."""
        provider = self.key.partition(":")[0] or None
        if ticket.quota_reset is not None:
            hours = ticket.quota_reset / 3600
            return QuotaExhaustedError(
                429,
                f"{self.key}: its quota is spent (resets in {hours:.2f} h); nothing was sent",
                reset_after=ticket.quota_reset,
                provider=provider,
            )
        return PacingTimeoutError(self.key, ticket.wait, math.inf if left is None else left)

    async def release(self) -> None:
        """The admitted attempt will not be sent: give its slot back."""
        ticket, self.ticket = self.ticket, None
        if ticket is None:
            return
        try:
            await self._pacer.release(ticket)
        except Exception:
            logger.exception("%r.release failed for %s; ignoring it", self._pacer, self.key)

    def listen(self, responses: AsyncIterator[LlmResponse]) -> AsyncIterator[LlmResponse]:
        """``responses``, with the adapter's reported headers kept for ``ended``."""
        self._headers, self._last = {}, None
        return self._listening(responses)

    async def _listening(self, responses: AsyncIterator[LlmResponse]) -> AsyncIterator[LlmResponse]:
        try:
            while True:
                with headers_reported_to(self._keep):
                    try:
                        response = await anext(responses)
                    except StopAsyncIteration:
                        return
                self._last = response
                yield response
        finally:
            await aclose(responses)

    def _keep(self, headers: Mapping[str, str]) -> None:
        self._headers = headers

    async def ended(self, failure: BaseException | None) -> None:
        """The sent attempt is over: tell the pacer what the provider said."""
        ticket, self.ticket = self.ticket, None
        if ticket is None:
            return
        if failure is None:
            outcome = PaceOutcome(answered=True, headers=self._headers, used=_usage(self._last))
        else:
            outcome = _failure_outcome(failure)
        try:
            await self._pacer.observe(ticket, outcome)
        except Exception:
            logger.exception("%r.observe failed for %s; ignoring it", self._pacer, self.key)
