"""Where the command's output goes, and how it looks there.

One rule for every command: colours, spinners and live updates only on a
terminal; ``NO_COLOR`` (any value) turns colours off; output to a pipe or a
file is plain text with no control codes, so scripts can read it.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console

__all__ = ["is_plain", "make_console", "uses_unicode"]

_PIPE_WIDTH = 120


def _no_color() -> bool:
    return bool(os.environ.get("NO_COLOR"))


def make_console(*, stderr: bool = False) -> Console:
    """A console for stdout (or stderr) that follows the rule above."""
    stream = sys.stderr if stderr else sys.stdout
    terminal = stream.isatty()
    return Console(
        file=stream,
        no_color=_no_color(),
        color_system="auto" if terminal and not _no_color() else None,
        force_terminal=terminal,
        highlight=False,
        width=None if terminal else int(os.environ.get("COLUMNS", _PIPE_WIDTH)),
        soft_wrap=not terminal,
        emoji=False,
    )


def is_plain(console: Console) -> bool:
    """True when nothing animated may be drawn (not a terminal)."""
    return not console.is_terminal


def uses_unicode(console: Console) -> bool:
    """Whether box and bar characters can be printed."""
    return console.encoding.lower().replace("-", "").startswith("utf")
