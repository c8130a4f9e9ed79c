"""The CLI shows the waits a pacer added: in ``steadyflow trace`` and live during a run."""

import logging
from io import StringIO

from rich.console import Console

from steadyflow.cli._live import LiveReporter
from steadyflow.cli._timeline import render_timeline, summary_line
from steadyflow.trace_record import AttemptTrace, InvocationTrace, StepTrace


def paced_trace() -> InvocationTrace:
    first = AttemptTrace(1, 1.5, 1.5, end=1.6, paced=1.5, status="error", outcome="retry")
    second = AttemptTrace(2, 4.6, 3.0, end=5.0, paced=2.0, status="ok")
    step = StepTrace(1, "a", 0.0, end=5.0, model="gpt-x", attempts=[first, second])
    return InvocationTrace(invocation_id="i1", duration=5.0, status="ok", steps=[step])


def test_the_timeline_draws_a_paced_wait_and_names_the_pacers_share_of_a_retry_wait() -> None:
    out = StringIO()
    console = Console(file=out, width=160, no_color=True)
    console.print(render_timeline(console, paced_trace()))
    text = out.getvalue()
    assert "paced 1.50 s: the provider's rate limit" in text
    assert "backoff 3.00 s · paced 2.00 s" in text


def test_the_summary_counts_paced_waits_as_waiting() -> None:
    assert "waited 4.50 s" in summary_line(paced_trace())


def test_a_live_run_prints_paced_waits() -> None:
    out = StringIO()
    reporter = LiveReporter(Console(file=out, width=120, no_color=True))
    logger = logging.getLogger("steadyflow.retry")
    with reporter.retry_logs():
        logger.info("model call paced", extra={"paced": 1.5})
        logger.warning("model call failed, retrying", extra={"delay": 3.0, "paced": 2.0})
        logger.warning("model call failed, retrying", extra={"delay": 0.5, "paced": 0.0})
    assert out.getvalue().splitlines() == [
        "  waiting 1.50 s (paced: the provider's rate limit)",
        "  waiting 3.00 s (backoff, paced 2.00 s)",
        "  waiting 0.50 s (backoff)",
    ]
