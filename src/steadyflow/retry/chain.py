"""The retry loop over a ``FallbackLlm``: the full policy per model, then the next model.

A provider module may not import the retry loop, so ``FallbackLlm`` is only
the list of models; this module is where the loop walks it. Each model is
called through ``generate_one`` (the single-model retry loop, with its own
budget and breaker key and every attempt charged to ``max_llm_calls``).
When that loop gives up and nothing was yielded, the call moves to the next
model if the error was transient or the circuit was open. A stream that has
yielded anything is committed to its model: a later error propagates.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Collection

from .._aio import aclose
from ..errors import CircuitOpenError, error_chain
from ..models.base import BaseLlm
from ..models.fallback import FallbackLlm, tag_response
from ..models.llm_request import LlmRequest
from ..models.llm_response import LlmResponse
from .classify import describe_failure
from .config import RetryConfig

__all__ = ["falls_over", "generate_with_fallbacks"]

logger = logging.getLogger("steadyflow.retry")

GenerateOne = Callable[[BaseLlm, LlmRequest], AsyncIterator[LlmResponse]]


def falls_over(llm: BaseLlm, error: Exception, codes: Collection[int]) -> bool:
    """Whether ``error`` from ``llm`` moves the call on: an open circuit, or transient.

    Classified like a retry: any link of the cause chain counts, and an
    ``LlmCallsLimitExceededError`` anywhere stops the call.
    """
    details = describe_failure(llm, error, codes, attempt=1, elapsed=0.0)
    if details.call_limit_in_chain:
        return False
    return details.retryable or any(isinstance(e, CircuitOpenError) for e in error_chain(error))


async def generate_with_fallbacks(
    chain: FallbackLlm,
    request: LlmRequest,
    generate_one: GenerateOne,
    config: RetryConfig,
) -> AsyncIterator[LlmResponse]:
    """Yield the responses of the first model in ``chain`` that answers.

    Raises:
        Exception: the last model's error, or the first error that does not
            move the call on (not transient, the call budget, or output
            already yielded), unchanged.
    """
    models = chain.models
    for index, llm in enumerate(models):
        emitted = False
        responses = generate_one(llm, chain.request_for(llm, request))
        try:
            async for response in responses:
                emitted = True
                yield tag_response(response, llm, index)
            return
        except Exception as error:
            if (
                emitted
                or index == len(models) - 1
                or not falls_over(llm, error, config.retryable_status_codes)
            ):
                raise
            logger.warning(
                "model %s unavailable (%s), falling back to %s",
                llm.model,
                type(error).__qualname__,
                models[index + 1].model,
                extra={
                    "model": llm.model,
                    "fallback_model": models[index + 1].model,
                    "error_type": type(error).__qualname__,
                },
            )
        finally:
            await aclose(responses)
