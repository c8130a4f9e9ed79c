"""Retries at the model-call boundary: configuration, policy and the retry loop.

``RetryConfig`` is what users set; ``decide`` is the pure policy;
``_executor.generate_with_retries`` is the loop the flow runs around each
logical model call; ``_clock`` holds the injectable clock all waits go through
(``steadyflow.testing.fake_clock`` replaces it in tests).
Budgets (``TokenBucketRetryBudget``, ``AdaptiveThrottle``) and the
``CircuitBreaker`` cap retries and calls across all calls of a process, and
their ``Redis`` twins across a fleet. ``ProviderPacer`` sends at the rate the
provider accepts (learned from its rate-limit headers, or from its 429s).

Import from this package, never from a submodule: every module here has an
underscore name and may change; the names in ``__all__`` are the public ones.
"""

from __future__ import annotations

import typing

if typing.TYPE_CHECKING:
    from ._breaker import CircuitBreaker, CircuitState
    from ._budget import AdaptiveThrottle, TokenBucketRetryBudget
    from ._config import RetryConfig
    from ._pacer import ProviderPacer
    from ._policy import RetryDecision, RetryDetails, RetryReason, backoff_delay, decide
    from ._protocols import PaceOutcome, PacePass, Pacer, RetryBudget
    from ._redis_budget import RedisCircuitBreaker, RedisRetryBudget
    from ._redis_pacer import RedisProviderPacer

# Public name -> the submodule defining it, imported on first access (PEP 562).
_LAZY: dict[str, str] = {
    "AdaptiveThrottle": "_budget",
    "CircuitBreaker": "_breaker",
    "CircuitState": "_breaker",
    "PaceOutcome": "_protocols",
    "PacePass": "_protocols",
    "Pacer": "_protocols",
    "ProviderPacer": "_pacer",
    "RedisCircuitBreaker": "_redis_budget",
    "RedisProviderPacer": "_redis_pacer",
    "RedisRetryBudget": "_redis_budget",
    "RetryBudget": "_protocols",
    "RetryConfig": "_config",
    "RetryDecision": "_policy",
    "RetryDetails": "_policy",
    "RetryReason": "_policy",
    "TokenBucketRetryBudget": "_budget",
    "backoff_delay": "_policy",
    "decide": "_policy",
}

__all__ = [
    "AdaptiveThrottle",
    "CircuitBreaker",
    "CircuitState",
    "PaceOutcome",
    "PacePass",
    "Pacer",
    "ProviderPacer",
    "RedisCircuitBreaker",
    "RedisProviderPacer",
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
