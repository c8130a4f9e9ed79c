"""``agent_span``: one agent run inside its ``invoke_agent`` span, shared by every agent kind.

The span is the parent of the run's model and tool spans (and of its
sub-agents' runs); an error that ends the run is recorded on it; when the
run ends, the trace counts the run's steps onto it.
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager

from .. import telemetry
from ..context import InvocationContext

__all__ = ["agent_span"]


@contextmanager
def agent_span(agent_name: str, ctx: InvocationContext) -> Generator[InvocationContext, None, None]:
    """A context for ``agent_name``'s run whose spans go under its new ``invoke_agent`` span."""
    span = telemetry.start_agent_span(
        agent_name,
        conversation_id=ctx.session.id,
        invocation_id=ctx.invocation_id,
        parent=ctx.agent_span,
    )
    run_ctx, first_step = ctx.with_agent_span(span), len(ctx.trace.trace.steps)
    try:
        yield run_ctx
    except Exception as error:
        telemetry.record_error(span, error)
        raise
    finally:
        run_ctx.trace.end_agent_span(
            span, agent_name, first_step, run_ctx.budget.count, run_ctx.budget.limit
        )
