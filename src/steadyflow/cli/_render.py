"""How events look on the command line: readable lines, or one JSON object per line.

Human output shows who said what, each tool call with its arguments and
result (shortened), streamed text as it arrives, and after each turn one
summary line from the invocation's stored trace. ``--jsonl`` writes every
event the runner yields (partials included) as one JSON object per line and
nothing else on stdout.
"""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.markup import escape

from ..events import Event
from ..trace_record import InvocationTrace
from ._live import LiveReporter
from ._timeline import summary_line

__all__ = ["EventPrinter", "shorten"]

_LIMIT = 160


def shorten(value: Any, limit: int = _LIMIT) -> str:
    """``repr``-like text of ``value``, cut to ``limit`` characters."""
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class EventPrinter:
    """Prints a turn's events (see the module docstring)."""

    def __init__(
        self, console: Console, *, jsonl: bool = False, reporter: LiveReporter | None = None
    ) -> None:
        self.console = console
        self.jsonl = jsonl
        self.reporter = reporter
        self._streaming = False

    def show(self, event: Event) -> None:
        """Print one event."""
        if self.jsonl:
            sys.stdout.write(event.model_dump_json(exclude_none=True) + "\n")
            sys.stdout.flush()
            return
        if self.reporter is not None:
            self.reporter.stop()
        if event.partial:
            self._partial(event)
            return
        for call in event.get_function_calls():
            args = ", ".join(f"{k}={v!r}" for k, v in call.args.items())
            self.console.print(f"  [cyan]→ {escape(call.name)}[/]({escape(shorten(args))})")
        for response in event.get_function_responses():
            result = shorten(response.response)
            self.console.print(f"  [cyan]← {escape(response.name)}[/] {escape(result)}")
        if event.error_code:
            message = escape(event.error_message or "")
            self.console.print(f"[red]{escape(event.author)}: {event.error_code}[/] {message}")
        if event.text:
            if self._streaming:
                self.console.print()
            else:
                self.console.print(f"[bold]{escape(event.author)}:[/] {escape(event.text)}")
        self._streaming = False

    def _partial(self, event: Event) -> None:
        if not event.text:
            return
        if not self._streaming:
            self.console.print(f"[bold]{escape(event.author)}:[/] ", end="")
            self._streaming = True
        self.console.print(escape(event.text), end="")

    def summary(self, trace: InvocationTrace | None, session_id: str) -> None:
        """The turn's one-line summary (human output only)."""
        if self.jsonl:
            return
        if self._streaming:
            self.console.print()
            self._streaming = False
        if trace is not None:
            self.console.print(f"[dim]{escape(summary_line(trace))} · session {session_id}[/]")
