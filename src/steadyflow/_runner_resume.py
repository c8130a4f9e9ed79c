"""The continuation path under ``Runner``: take an invocation and run it on from its events.

Split out of ``runner.py``: ``resume_async`` (after a crash) and
``run_async`` with confirmation answers (after a pause) both take the
invocation's record (a ``Taker``), find where its stored events stop, rebuild
its context (budget, usage, trace carried on) and run the agent on from there.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ._runner_store import Started
from .durable import Taker, rest_of_invocation, resume_point
from .run_config import RunConfig
from .usage import UsageTotals
from .usage._meter import UsageMeter

if TYPE_CHECKING:
    from .runner import Runner

__all__ = ["continue_invocation"]


async def continue_invocation(
    runner: Runner,
    user_id: str,
    session_id: str,
    run_config: RunConfig | None,
    take: Taker,
    *,
    crashed: bool,
) -> Started | None:
    """Take the invocation, rebuild its context, and start its agent where it stopped.

    The start function of ``stored_events`` for a continuation: None when
    ``take`` finds nothing to run now.
    """
    session = await runner._load(user_id, session_id)  # pyright: ignore[reportPrivateUsage]
    taken = await take(session)
    if taken is None:
        return None
    record, uncounted = taken
    if run_config is None:
        run_config = RunConfig(
            max_llm_calls=record.max_llm_calls,
            usage_limits=UsageMeter.stored_limits(record.usage),
        )
    point = resume_point(session.events, record.id)
    ctx = runner._context(session, run_config, point.user_content, record.id)  # pyright: ignore[reportPrivateUsage]
    if record.trace is not None:  # paused before: one trace for the whole invocation
        ctx.trace.carry_on(record.trace, time.time())
    ctx.usage.totals = UsageTotals.from_dict(record.usage)
    keeper = runner._keeper(record, ctx)  # pyright: ignore[reportPrivateUsage]
    if crashed:
        keeper.mark_resumed()
    keeper.start_renewal()
    ctx.journal = keeper
    if point.agent_name is None:  # no agent event stored yet: the record's agent starts
        point.agent_name = record.agent
    rest = rest_of_invocation(runner.agent, ctx, session.events, point)
    # A model call in flight when a killed process left its record unclosed
    # counts as an attempt made; a record its process closed counted its own.
    ctx.budget.count = record.llm_calls + (1 if uncounted and rest.model_next else 0)
    return session, ctx, keeper, rest.events
