"""Models: the ``BaseLlm`` interface, requests, responses and the name registry.

Public because users extend it: write a ``BaseLlm`` for a new provider or a
proxy, or register a factory for a name pattern.
"""

from ._headers import report_response_headers
from .base import BaseLlm, BaseLlmConnection, parse_retry_after
from .fallback import FallbackLlm
from .llm_request import LlmRequest
from .llm_response import LlmResponse
from .registry import LlmRegistry

__all__ = [
    "BaseLlm",
    "BaseLlmConnection",
    "FallbackLlm",
    "LlmRegistry",
    "LlmRequest",
    "LlmResponse",
    "parse_retry_after",
    "report_response_headers",
]
