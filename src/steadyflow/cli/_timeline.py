"""The timeline of one invocation, drawn from its stored trace.

One row per step, attempt, wait and tool call, each with its start, its
duration and a bar placed on a shared time axis, so a retry storm or a slow
tool is visible at a glance; then one summary line (attempts, retries, time
spent waiting, tokens, budget in attempts). Used by ``steadyflow trace``,
the summary after each turn of ``run``, and the demo.

A tool call that asked a person (``short_circuit == "confirmation"``) ends
its step; the time until the next step started is the person's, drawn as
a row of its own and counted apart from the retry waits. With no next step
(and no error or cancellation since) the invocation is still waiting, and
the summary says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..trace_record import AttemptTrace, InvocationTrace, StepTrace, ToolTrace
from ..usage.prices import usd
from ._console import is_plain, uses_unicode

__all__ = [
    "clip_words",
    "count",
    "duration",
    "model_calls",
    "person_waits",
    "render_timeline",
    "summary_line",
    "waited",
]

_BAR_WIDTH = 32


@dataclass(frozen=True)
class _Row:
    label: str
    start: float | None
    seconds: float | None
    kind: str  # "ok" | "error" | "wait" | "tool" | "step"
    detail: str


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 step``, ``2 steps``: ``n`` with ``noun`` in the right number."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def clip_words(text: str, limit: int) -> str:
    """``text`` on one line, cut at the first word end from ``limit`` characters on.

    A word is never cut: the one that crosses ``limit`` (often a URL, the
    part worth reading) is shown whole, and ``…`` marks what was left out.
    """
    text = " ".join(text.split())
    end = text.find(" ", limit)
    return text if len(text) <= limit or end < 0 else text[:end] + " …"


def model_calls(trace: InvocationTrace) -> int:
    """Logical model calls: steps that asked a model (not answered by a callback)."""
    return sum(1 for step in trace.steps if step.attempts)


def duration(seconds: float | None) -> str:
    """``12 ms`` below a second, ``1.20 s`` above."""
    if seconds is None:
        return ""
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def waited(trace: InvocationTrace) -> float:
    """Seconds spent waiting: between attempts (backoff, Retry-After) and for the pacer."""
    total = 0.0
    for step in trace.steps:
        if step.attempts:
            total += step.attempts[0].paced or 0.0
        for before, after in zip(step.attempts, step.attempts[1:], strict=False):
            total += max(0.0, after.start - (before.end if before.end is not None else after.start))
    return total


def person_waits(trace: InvocationTrace) -> list[tuple[float, float | None]]:
    """Each wait for a person's answer: its start and seconds (None: still waiting)."""
    waits: list[tuple[float, float | None]] = []
    for index, step in enumerate(trace.steps):
        asked = any(tool.short_circuit == "confirmation" for tool in step.tools)
        if not asked or step.end is None:
            continue
        later = trace.steps[index + 1 :]
        waits.append((step.end, max(0.0, later[0].start - step.end) if later else None))
    return waits


def _person_row(start: float, seconds: float | None) -> _Row:
    if seconds is None:
        return _Row("  person", start, None, "wait", "waiting for a person's answer")
    return _Row("  person", start, seconds, "wait", f"a person answered after {duration(seconds)}")


def _attempt_detail(attempt: AttemptTrace, step: StepTrace, last: bool) -> str:
    if attempt.status == "ok":
        parts = ["ok"]
        if last and step.input_tokens is not None:
            parts.append(f"{step.input_tokens} in / {step.output_tokens or 0} out tokens")
        if last and step.finish_reason:
            parts.append(step.finish_reason)
        if attempt.cost is not None:
            parts.append(usd(attempt.cost))
        return " · ".join(parts)
    status = f"{attempt.status_code} " if attempt.status_code is not None else ""
    detail = f"{status}{attempt.error_type or attempt.status}"
    if attempt.input_tokens is not None:  # a failed attempt the provider billed
        detail += f" · {attempt.input_tokens} in / {attempt.output_tokens or 0} out tokens"
    if attempt.cost is not None:
        detail += f" · {usd(attempt.cost)}"
    if attempt.retry_after is not None:
        detail += f" · Retry-After {attempt.retry_after:g} s"
    if attempt.outcome and attempt.outcome != "retry":
        detail += f" · gave up: {attempt.outcome}"
    return detail


def _tool_row(tool: ToolTrace) -> _Row:
    detail = tool.status if tool.error_type is None else f"{tool.status} · {tool.error_type}"
    if tool.short_circuit == "confirmation":
        detail = "asked a person to confirm"
    elif tool.short_circuit:
        detail = f"answered by {tool.short_circuit}"
    seconds = None if tool.end is None else tool.end - tool.start
    where = f" ({tool.server})" if tool.server else ""
    return _Row(f"  tool {tool.name}{where}", tool.start, seconds, "tool", detail)


def _step_rows(step: StepTrace) -> list[_Row]:
    agent = " / ".join(step.path) if step.path else step.agent
    head = f"{agent} → {step.model}" if step.model else agent
    if step.short_circuit == "before_model_callback":
        head += " · answered by before_model_callback (no model call)"
    elif step.short_circuit:
        head += f" · answered by {step.short_circuit}"
    seconds = None if step.end is None else step.end - step.start
    rows = [_Row(f"step {step.number}", step.start, seconds, "step", head)]
    previous: AttemptTrace | None = None
    for attempt in step.attempts:
        paced = f" · paced {attempt.paced:.2f} s" if attempt.paced else ""
        if previous is not None and previous.end is not None:
            why = "Retry-After" if attempt.delay_from_retry_after else "backoff"
            gap = attempt.start - previous.end
            text = f"{why} {attempt.delay:.2f} s{paced}"
            rows.append(_Row("  wait", previous.end, gap, "wait", text))
        elif attempt.paced:
            start = attempt.start - attempt.paced
            text = f"paced {attempt.paced:.2f} s: the provider's rate limit"
            rows.append(_Row("  paced", start, attempt.paced, "wait", text))
        last = attempt is step.attempts[-1]
        seconds = None if attempt.end is None else attempt.end - attempt.start
        kind = "ok" if attempt.status == "ok" else "error"
        detail = _attempt_detail(attempt, step, last)
        rows.append(_Row(f"  attempt {attempt.number}", attempt.start, seconds, kind, detail))
        previous = attempt
    rows.extend(_tool_row(tool) for tool in step.tools)
    return rows


def _rows(trace: InvocationTrace) -> list[_Row]:
    waits = dict(person_waits(trace))
    rows: list[_Row] = []
    for step in trace.steps:
        rows.extend(_step_rows(step))
        if step.end is not None and step.end in waits:
            rows.append(_person_row(step.end, waits[step.end]))
    return rows


_GLYPHS = {
    True: {"ok": "█", "error": "█", "wait": "░", "tool": "▒", "step": "─"},
    False: {"ok": "#", "error": "x", "wait": ".", "tool": "=", "step": "-"},
}
_STYLES = {"ok": "green", "error": "red", "wait": "yellow", "tool": "cyan", "step": "dim"}


def _bar(row: _Row, total: float, unicode: bool) -> Text:
    if row.start is None or row.seconds is None or total <= 0:
        return Text("")
    scale = _BAR_WIDTH / total
    begin = min(_BAR_WIDTH - 1, int(row.start * scale))
    length = max(1, min(_BAR_WIDTH - begin, round(row.seconds * scale)))
    return Text(" " * begin) + Text(_GLYPHS[unicode][row.kind] * length, style=_STYLES[row.kind])


def summary_line(trace: InvocationTrace) -> str:
    """Steps, attempts, retries, waits, tools, tokens, cost, budget and outcome in one line."""
    tools = sum(len(step.tools) for step in trace.steps)
    budget = (
        f"budget {trace.budget_used}/{trace.budget_limit} attempts"
        if trace.budget_limit > 0
        else "no budget"
    )
    status = trace.status if trace.error_type is None else f"{trace.status} ({trace.error_type})"
    waits = person_waits(trace)
    ending = f"{status} in {duration(trace.duration)}"
    if waits and waits[-1][1] is None and trace.status not in ("error", "cancelled"):
        ending = f"waiting for a person (after {duration(trace.duration)})"
    person = sum(seconds or 0.0 for _, seconds in waits)
    retries = count(trace.retries, "retry", "retries")
    parts = [
        count(len(trace.steps), "step"),
        f"{count(trace.attempts, 'attempt')} ({retries}, waited {waited(trace):.2f} s)",
        count(tools, "tool call"),
        *([f"a person took {duration(person)}"] if person else []),
        f"{trace.input_tokens} in / {trace.output_tokens} out tokens",
        *([] if trace.cost is None else [usd(trace.cost)]),
        budget,
        ending,
    ]
    return " · ".join(parts)


def render_timeline(console: Console, trace: InvocationTrace) -> RenderableType:
    """The table and summary for ``trace``, styled for ``console``."""
    plain, unicode = is_plain(console), uses_unicode(console)
    table = Table(
        box=None if plain else box.SIMPLE_HEAD,
        title=None if plain else f"invocation {trace.invocation_id}",
        title_justify="left",
        pad_edge=False,
    )
    for name, justify in (("what", "left"), ("start", "right"), ("took", "right")):
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    table.add_column("timeline", no_wrap=True, min_width=_BAR_WIDTH)
    table.add_column("detail")
    total = trace.duration or 0.0
    for row in _rows(trace):
        start = "" if row.start is None else f"{row.start:.3f}"
        label = Text(row.label, style="bold" if row.kind == "step" else "")
        bar = _bar(row, total, unicode)
        table.add_row(label, start, duration(row.seconds), bar, row.detail)
    header = Text(f"invocation {trace.invocation_id}") if plain else Text("")
    return Group(header, table, Text(summary_line(trace), style="bold"))
