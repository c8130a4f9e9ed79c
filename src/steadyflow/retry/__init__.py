"""Retries at the model-call boundary: configuration, policy and the retry loop.

``RetryConfig`` is what users set; ``decide`` is the pure policy;
``executor.generate_with_retries`` is the loop the flow runs around each
logical model call; ``clock`` holds the injectable clock all waits go through.
Budgets (``TokenBucketRetryBudget``, ``AdaptiveThrottle``) and the
``CircuitBreaker`` cap retries and calls across all calls of a process, and
their ``Redis`` twins across a fleet.
"""

from __future__ import annotations

import typing

if typing.TYPE_CHECKING:
    from ._protocols import RetryBudget
    from .breaker import CircuitBreaker, CircuitState
    from .budget import AdaptiveThrottle, TokenBucketRetryBudget
    from .config import RetryConfig
    from .policy import RetryDecision, RetryDetails, RetryReason, backoff_delay, decide
    from .redis_budget import RedisCircuitBreaker, RedisRetryBudget

# Public name -> the submodule defining it, imported on first access (PEP 562).
_LAZY: dict[str, str] = {
    "AdaptiveThrottle": "budget",
    "CircuitBreaker": "breaker",
    "CircuitState": "breaker",
    "RedisCircuitBreaker": "redis_budget",
    "RedisRetryBudget": "redis_budget",
    "RetryBudget": "_protocols",
    "RetryConfig": "config",
    "RetryDecision": "policy",
    "RetryDetails": "policy",
    "RetryReason": "policy",
    "TokenBucketRetryBudget": "budget",
    "backoff_delay": "policy",
    "decide": "policy",
}

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


# Hidden from type checkers, which see the TYPE_CHECKING imports instead: a visible
# module __getattr__ would make them accept any name, typos included.
if not typing.TYPE_CHECKING:
    from .._lazy import lazy_attributes

    __getattr__, __dir__ = lazy_attributes(__name__, globals(), _LAZY, __all__)
