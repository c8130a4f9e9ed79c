"""Retries at the model-call boundary: configuration, policy and the retry loop.

``RetryConfig`` is what users set; ``decide`` is the pure policy;
``executor.generate_with_retries`` is the loop the flow runs around each
logical model call; ``clock`` holds the injectable clock all waits go through.
Budgets (``TokenBucketRetryBudget``, ``AdaptiveThrottle``) and the
``CircuitBreaker`` cap retries and calls across all calls of a process, and
their ``Redis`` twins across a fleet.
"""

from .breaker import CircuitBreaker, CircuitState
from .budget import AdaptiveThrottle, RetryBudget, TokenBucketRetryBudget
from .config import RetryConfig
from .policy import RetryDecision, RetryDetails, RetryReason, backoff_delay, decide
from .redis_budget import RedisCircuitBreaker, RedisRetryBudget

__all__ = [
    "AdaptiveThrottle",
    "CircuitBreaker",
    "CircuitState",
    "RedisCircuitBreaker",
    "RedisRetryBudget",
    "RetryBudget",
    "RetryConfig",
    "RetryDecision",
    "RetryDetails",
    "RetryReason",
    "TokenBucketRetryBudget",
    "backoff_delay",
    "decide",
]
