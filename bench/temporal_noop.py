"""A no-op turn for the Temporal bench: a two-step turn's activities, each doing nothing.

Its own module (imported by name, not as ``__main__``) so Temporal's
sandbox can load the workflow the way it loads steadyflow's.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import activity, workflow

NOOP_ACTIVITIES = 8  # begin, model, append, tool, append, model, append, finish


@activity.defn(name="bench.noop")
async def noop() -> None:
    """An activity that does nothing: Temporal's round trip alone."""


@workflow.defn(name="bench.noop_turn")
class NoopTurn:
    """A workflow with a two-step turn's activities, all doing nothing."""

    @workflow.run
    async def run(self) -> None:
        """Run ``NOOP_ACTIVITIES`` activities one after the other."""
        for _ in range(NOOP_ACTIVITIES):
            await workflow.execute_activity(
                "bench.noop", start_to_close_timeout=timedelta(seconds=30)
            )
