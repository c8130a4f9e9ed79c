"""Turn a provider exception into ``RetryDetails`` by walking its cause chain.

SDKs and user code wrap errors: an ``openai.APIStatusError`` becomes a
``ModelHTTPError``, which a proxy model may wrap in a ``RuntimeError``. The
transient failure can be any link, so every link of the ``__cause__`` /
``__context__`` chain is shown to the provider's own classifier. The walk
keeps an identity set, so a chain that loops back on itself ends.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Collection

from ..errors import InvocationLimitError, QuotaExhaustedError, error_chain
from ..models.base import BaseLlm, classify_link, status_of
from ._policy import RetryDetails

__all__ = ["describe_failure"]

logger = logging.getLogger("steadyflow.retry")


def _retry_after(llm: BaseLlm, link: BaseException) -> float | None:
    try:
        value = llm.retry_after(link)
    except Exception:
        logger.exception("%r.retry_after raised; ignoring the hint", llm)
        return None
    if value is None or math.isnan(value):
        return None
    return max(0.0, float(value))


def describe_failure(
    llm: BaseLlm,
    error: BaseException,
    codes: Collection[int],
    *,
    attempt: int,
    elapsed: float,
    output_emitted: bool = False,
) -> RetryDetails:
    """The facts about a failed attempt that ``decide`` needs.

    Retryable if the provider calls any link retryable, unless a link is a
    ``QuotaExhaustedError`` (a spent quota: the SDK's own 429 beneath it
    would say retryable); the status and the wait hint are the first ones
    found from the outermost link inwards.
    """
    retryable = call_limit = quota = False
    status: int | None = None
    hint: float | None = None
    for link in error_chain(error):
        if isinstance(link, InvocationLimitError):
            call_limit = True
            break
        quota = quota or isinstance(link, QuotaExhaustedError)
        retryable = retryable or classify_link(llm, link, codes)
        if status is None:
            status = status_of(link)
        if hint is None:
            hint = _retry_after(llm, link)
    return RetryDetails(
        attempt=attempt,
        error_type=type(error).__qualname__,
        retryable=retryable and not quota,
        call_limit_in_chain=call_limit,
        quota_exhausted=quota,
        status_code=status,
        retry_after=hint,
        output_emitted=output_emitted,
        elapsed=elapsed,
    )
