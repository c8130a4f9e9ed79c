"""The budget and the breaker around each provider attempt, as the retry loop uses them.

``RetryConfig.budget`` and ``RetryConfig.circuit_breaker`` are shared,
stateful objects; the loop in ``_executor.py`` talks to them only through
``Guards``, at three points: before the first attempt (``admit_first``),
after a successful attempt (``record``), and after a failed one
(``after_failure``: record it, then ask about the retry).
The order matters: an attempt's outcome is recorded *before* the budget is
asked about the retry that follows it, which is what bounds a fleet's
retries by the budget however many callers race.

A budget or breaker that raises (a bug in a user's implementation) is
logged and ignored: the budget store never fails a call by itself.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ..errors import CircuitOpenError
from ._budget import budget_key
from ._config import RetryConfig
from ._policy import RetryDecision, RetryDetails, RetryReason
from ._protocols import Breaker, RetryBudget

__all__ = ["Guards"]

logger = logging.getLogger("steadyflow.retry")


@dataclass(frozen=True)
class Guards:
    """The shared budget and breaker of one logical call, with its key."""

    key: str
    budget: RetryBudget | None
    breaker: Breaker | None

    @staticmethod
    def of(config: RetryConfig, provider: str, model: str) -> Guards | None:
        """The guards ``config`` asks for, or None when it has neither (the fast path)."""
        if config.budget is None and config.circuit_breaker is None:
            return None
        return Guards(budget_key(provider, model), config.budget, config.circuit_breaker)

    async def admit_first(self) -> None:
        """Let the first attempt start, or raise ``CircuitOpenError``.

        The budget is asked first, so a first attempt it sheds takes no
        half-open probe from the breaker.
        """
        if self.budget is not None and not await self._allow(retry=False):
            raise CircuitOpenError(
                f"retry budget for {self.key} shed this call: the provider is failing most calls",
                provider=self.key.partition(":")[0] or None,
            )
        if self.breaker is not None:
            await self._acquire()

    async def admit_retry(self) -> RetryReason | None:
        """None to go ahead with a retry, else why it may not happen."""
        if self.budget is not None and not await self._allow(retry=True):
            return RetryReason.BUDGET_EXHAUSTED
        if self.breaker is not None:
            try:
                await self._acquire()
            except CircuitOpenError:
                return RetryReason.CIRCUIT_OPEN
        return None

    async def after_failure(self, details: RetryDetails, decision: RetryDecision) -> RetryDecision:
        """Record a failed attempt, then let the retry ``decision`` stand or refuse it.

        A failure caused by the invocation's own call limit says nothing about
        the provider and is not recorded.
        """
        if not details.call_limit_in_chain:
            await self.record(failed=details.retryable)
        if not decision.retry:
            return decision
        refusal = await self.admit_retry()
        if refusal is None:
            return decision
        return RetryDecision(retry=False, delay=0.0, reason=refusal)

    async def record(self, *, failed: bool) -> None:
        """Tell the budget and the breaker how an attempt ended."""
        for guard in (self.budget, self.breaker):
            if guard is None:
                continue
            try:
                await guard.record(self.key, failed=failed)
            except Exception:
                logger.exception("%r.record failed for %s; ignoring it", guard, self.key)

    async def _allow(self, *, retry: bool) -> bool:
        assert self.budget is not None
        try:
            return bool(await self.budget.allow(self.key, retry=retry))
        except Exception:
            logger.exception("%r.allow failed for %s; allowing the attempt", self.budget, self.key)
            return True

    async def _acquire(self) -> None:
        assert self.breaker is not None
        try:
            await self.breaker.acquire(self.key)
        except CircuitOpenError:
            raise
        except Exception:
            logger.exception("%r.acquire failed for %s; allowing the call", self.breaker, self.key)
