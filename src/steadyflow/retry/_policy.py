"""The retry policy as a pure function: facts about a failed attempt in, a decision out.

Nothing here sleeps, reads a clock, draws random numbers or touches an
exception: the loop in ``_executor.py`` gathers the facts (``RetryDetails``),
asks ``decide`` and does the waiting. That keeps every rule testable as data.

Delay before retry n (n = 1, 2, ...), with u drawn uniformly from [-1, 1]::

    base  = min(initial_backoff * multiplier ** (n - 1), max_backoff)
    delay = min(base * (1 + jitter_ratio * u), max_backoff)

With a provider hint h (Retry-After, retry-after-ms, Gemini RetryInfo) and
``respect_retry_after``: ``delay = max(delay, h)``, and h > ``max_retry_after``
gives up at once instead of waiting.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from ._config import RetryConfig

__all__ = ["RetryDecision", "RetryDetails", "RetryReason", "backoff_delay", "decide"]


class RetryReason(enum.Enum):
    """Why ``decide`` retried or gave up; the value reads well in logs."""

    RETRYABLE = "retryable error"
    OUTPUT_EMITTED = "the attempt already yielded a response"
    CALL_LIMIT = "the invocation's call budget (attempts) is spent"
    NOT_RETRYABLE = "error is not retryable"
    ATTEMPTS_EXHAUSTED = "max_attempts reached"
    HINT_TOO_LONG = "provider asked to wait longer than max_retry_after"
    TOTAL_TIMEOUT = "the wait would pass total_timeout"
    BUDGET_EXHAUSTED = "the retry budget refused the retry"
    CIRCUIT_OPEN = "the circuit breaker is open"
    QUOTA_EXHAUSTED = "the provider's quota is spent until its reset"
    PACED_PAST_DEADLINE = "the pacer admits the retry only after total_timeout"


@dataclass(frozen=True, kw_only=True)
class RetryDetails:
    """The normalized facts about one failed attempt.

    Attributes:
        attempt: number of the attempt that failed (1 = the first).
        error_type: class name of the error the provider call raised.
        retryable: whether the provider classified some link of the error's
            cause/context chain as transient.
        call_limit_in_chain: an ``LlmCallsLimitExceededError`` is in the chain.
        output_emitted: the attempt had yielded a response before failing.
        quota_exhausted: a ``QuotaExhaustedError`` is in the chain: a spent
            quota, never retried.
        status_code: the HTTP-like status found in the chain, if any.
        retry_after: the provider's wait hint in seconds, if it gave one.
        elapsed: seconds since the logical call started, waits included.
    """

    attempt: int
    error_type: str = "Exception"
    retryable: bool = False
    call_limit_in_chain: bool = False
    output_emitted: bool = False
    quota_exhausted: bool = False
    status_code: int | None = None
    retry_after: float | None = None
    elapsed: float = 0.0


@dataclass(frozen=True)
class RetryDecision:
    """What to do after a failed attempt.

    Attributes:
        retry: make another attempt.
        delay: seconds to wait first (0.0 when not retrying).
        reason: why.
        paced: the part of ``delay`` a pacer added (``RetryConfig.pacer``).
    """

    retry: bool
    delay: float
    reason: RetryReason
    paced: float = 0.0


def backoff_delay(config: RetryConfig, retry_number: int, jitter: float = 0.0) -> float:
    """The delay before retry ``retry_number`` (1 = first retry), before any hint.

    ``min(initial * multiplier**(n-1), max_backoff) * (1 + jitter_ratio * jitter)``,
    capped at ``max_backoff``; ``jitter`` is a draw from [-1, 1].
    """
    if retry_number < 1:
        raise ValueError(f"retry_number must be >= 1, got {retry_number}")
    if not -1.0 <= jitter <= 1.0:
        raise ValueError(f"jitter must be a draw from [-1, 1], got {jitter!r}")
    try:
        base = config.initial_backoff * config.multiplier ** (retry_number - 1)
    except OverflowError:
        base = math.inf
    base = min(base, config.max_backoff)
    return min(base * (1.0 + config.jitter_ratio * jitter), config.max_backoff)


def _give_up(reason: RetryReason) -> RetryDecision:
    return RetryDecision(retry=False, delay=0.0, reason=reason)


def decide(config: RetryConfig, details: RetryDetails, jitter: float = 0.0) -> RetryDecision:
    """Decide whether to retry after the failed attempt ``details`` describes.

    The rules, in order: an attempt that yielded output is committed; a spent
    call budget is final; a spent provider quota is final; a non-retryable
    error is final; ``max_attempts`` bounds the attempts; a hint above
    ``max_retry_after`` gives up; the wait is ``max(backoff, hint)``; a wait
    that would end past ``total_timeout`` is not started.

    Args:
        config: the retry settings.
        details: facts about the failed attempt.
        jitter: a uniform draw from [-1, 1] (the caller's random source).
    """
    if details.output_emitted:
        return _give_up(RetryReason.OUTPUT_EMITTED)
    if details.call_limit_in_chain:
        return _give_up(RetryReason.CALL_LIMIT)
    if details.quota_exhausted:
        return _give_up(RetryReason.QUOTA_EXHAUSTED)
    if not details.retryable:
        return _give_up(RetryReason.NOT_RETRYABLE)
    if details.attempt >= config.max_attempts:
        return _give_up(RetryReason.ATTEMPTS_EXHAUSTED)
    delay = backoff_delay(config, details.attempt, jitter)
    hint = details.retry_after if config.respect_retry_after else None
    if hint is not None:
        if hint > config.max_retry_after:
            return _give_up(RetryReason.HINT_TOO_LONG)
        delay = max(delay, hint)
    if config.total_timeout is not None and details.elapsed + delay > config.total_timeout:
        return _give_up(RetryReason.TOTAL_TIMEOUT)
    return RetryDecision(retry=True, delay=delay, reason=RetryReason.RETRYABLE)
