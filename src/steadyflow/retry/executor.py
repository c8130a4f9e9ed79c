"""The retry loop around one logical model call: the only place that retries.

(First cut: counts the attempt against the budget and makes one attempt.
The full policy replaces the body of ``generate_with_retries``.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from ..models.base import BaseLlm
from ..models.llm_request import LlmRequest
from ..models.llm_response import LlmResponse
from .config import RetryConfig

__all__ = ["generate_with_retries"]


async def generate_with_retries(
    llm: BaseLlm,
    request: LlmRequest,
    *,
    stream: bool,
    config: RetryConfig,
    before_attempt: Callable[[], None],
    agent_name: str = "",
    invocation_id: str = "",
) -> AsyncIterator[LlmResponse]:
    """Call ``llm`` under ``config``, yielding the successful attempt's responses.

    ``before_attempt`` runs immediately before every provider attempt (it
    counts the attempt against ``max_llm_calls`` and may raise
    ``LlmCallsLimitExceededError``, which is never retried).
    """
    del config, agent_name, invocation_id
    before_attempt()
    async for response in llm.generate_content_async(request, stream=stream):
        yield response
