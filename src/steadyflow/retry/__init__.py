"""Retries at the model-call boundary: configuration, policy and the retry loop.

``RetryConfig`` is what users set; ``decide`` is the pure policy;
``executor.generate_with_retries`` is the loop the flow runs around each
logical model call; ``clock`` holds the injectable clock all waits go through.
"""

from .config import RetryConfig
from .policy import RetryDecision, RetryDetails, RetryReason, backoff_delay, decide

__all__ = [
    "RetryConfig",
    "RetryDecision",
    "RetryDetails",
    "RetryReason",
    "backoff_delay",
    "decide",
]
