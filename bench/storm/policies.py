"""The retry policies the storm compares: a registry later entries join.

Each ``StormPolicy`` is expressed with the runtime's own knobs, so the
simulation drives steadyflow's real retry loop for all of them; only the
settings differ. ``run_config`` is called once per simulation and the one
``RunConfig`` it returns serves every call of that simulation, so state it
holds (a shared retry budget, say) is shared by all callers, as it would be
in one process. ``wrap_model`` may put something (a circuit breaker) in
front of the provider. To add a policy (the shared-budget entry)::

    register_storm_policy(StormPolicy(
        name="steadyflow+budget",
        description="...",
        run_config=lambda: RunConfig(retry_config=...),
        needs=("steadyflow.retry:TokenBucketRetryBudget",),
    ))

``needs`` names what a policy uses beyond ``RunConfig``/``RetryConfig``
(``module:attribute``); the objects are built inside ``run_config``, so
this module imports on older code too. ``--at``/``--baseline`` can measure a
commit from before a feature: ``missing`` then says which name is absent and
the storm reports that policy as not run instead of crashing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from steadyflow import RetryConfig, RunConfig
from steadyflow.models import BaseLlm

from .provider import HeaderStyle

__all__ = [
    "BUILTIN_POLICIES",
    "PACER_POLICIES",
    "STORM_POLICIES",
    "StormPolicy",
    "missing",
    "register_storm_policy",
]


@dataclass(frozen=True)
class StormPolicy:
    """One contender in the storm.

    Attributes:
        name: short key shown in tables and plots.
        description: what it does, in words.
        run_config: builds the run config all calls of one simulation share.
        wrap_model: optionally wraps the provider (called once per simulation).
        headers: what the provider's answers and 429s carry (``provider.HeaderStyle``).
        needs: ``module:attribute`` names the policy uses, checked by ``missing``.
    """

    name: str
    description: str
    run_config: Callable[[], RunConfig]
    wrap_model: Callable[[BaseLlm], BaseLlm] | None = None
    headers: HeaderStyle = "retry-after"
    needs: tuple[str, ...] = ()


STORM_POLICIES: dict[str, StormPolicy] = {}


def register_storm_policy(policy: StormPolicy) -> StormPolicy:
    """Add ``policy`` to the storm; a second policy with the same name is an error."""
    if policy.name in STORM_POLICIES:
        raise ValueError(f"a storm policy named {policy.name!r} is already registered")
    STORM_POLICIES[policy.name] = policy
    return policy


def missing(policy: StormPolicy) -> str | None:
    """Why the measured steadyflow cannot run ``policy`` (a name it lacks); None when it can."""
    for need in policy.needs:
        module_name, _, attribute = need.partition(":")
        try:
            getattr(importlib.import_module(module_name), attribute)
        except (ImportError, AttributeError):
            return f"the measured steadyflow has no {module_name}.{attribute}"
    return None


def _retry(attribute: str) -> Any:
    """``steadyflow.retry.<attribute>``, looked up when a simulation starts."""
    return getattr(importlib.import_module("steadyflow.retry"), attribute)


def _retrying(**settings: Any) -> Callable[[], RunConfig]:
    return lambda: RunConfig(retry_config=RetryConfig(**settings))


BUILTIN_POLICIES = (
    StormPolicy("none", "one attempt, no retries", lambda: RunConfig()),
    StormPolicy(
        "naive",
        "3 attempts, a fixed 1 s wait, no jitter, Retry-After ignored",
        _retrying(
            max_attempts=3,
            initial_backoff=1.0,
            max_backoff=1.0,
            multiplier=1.0,
            jitter_ratio=0.0,
            respect_retry_after=False,
        ),
    ),
    StormPolicy(
        "sdk-style",
        "provider-SDK default: 2 retries, 0.5-8 s exponential backoff, 25% jitter, Retry-After",
        _retrying(max_attempts=3, initial_backoff=0.5, max_backoff=8.0, jitter_ratio=0.25),
    ),
    StormPolicy(
        "steadyflow",
        "RetryConfig(max_attempts=5, total_timeout=60): default backoff (0.5 s x2 up to 8 s, "
        "20% jitter), waits max(backoff, Retry-After)",
        _retrying(max_attempts=5, total_timeout=60.0),
    ),
    StormPolicy(
        "token-bucket",
        "steadyflow + TokenBucketRetryBudget() shared by all calls (gRPC defaults: 100 tokens, "
        "a failure costs 1, a success adds 0.1): no retries once failures drain half the bucket",
        lambda: RunConfig(
            retry_config=RetryConfig(
                max_attempts=5, total_timeout=60.0, budget=_retry("TokenBucketRetryBudget")()
            )
        ),
        needs=("steadyflow.retry:TokenBucketRetryBudget",),
    ),
    StormPolicy(
        "adaptive",
        "steadyflow + AdaptiveThrottle(k=1.1, throttle_first_attempts=True) shared by all calls "
        "(SRE client-side throttling): sheds calls, first attempts included, beyond 1.1x what "
        "the provider accepted over the last 2 minutes; a shed call fails fast",
        lambda: RunConfig(
            retry_config=RetryConfig(
                max_attempts=5,
                total_timeout=60.0,
                budget=_retry("AdaptiveThrottle")(k=1.1, throttle_first_attempts=True),
            )
        ),
        needs=("steadyflow.retry:AdaptiveThrottle",),
    ),
)


def _paced() -> RunConfig:
    pacer = _retry("ProviderPacer")()
    return RunConfig(retry_config=RetryConfig(max_attempts=5, total_timeout=60.0, pacer=pacer))


# The pacer learns from the headers the provider reports (report_response_headers).
_PACER_NEEDS = ("steadyflow.retry:ProviderPacer", "steadyflow.models:report_response_headers")


PACER_POLICIES = (
    StormPolicy(
        "pacer",
        "steadyflow + ProviderPacer() shared by all calls; the provider sends OpenAI's "
        "x-ratelimit-* headers: calls wait (up to total_timeout=60) for a slot at 95% of "
        "the learned rate instead of being refused",
        _paced,
        headers="openai",
        needs=_PACER_NEEDS,
    ),
    StormPolicy(
        "pacer, no headers",
        "the same ProviderPacer() against a provider that sends bare 429s (no rate-limit "
        "headers, no retry-after): it learns the rate from refusals (AIMD, x0.7 on a 429, "
        "back in 30 s)",
        _paced,
        headers="none",
        needs=_PACER_NEEDS,
    ),
)

for _policy in (*BUILTIN_POLICIES, *PACER_POLICIES):
    register_storm_policy(_policy)
