"""The ``steadyflow`` command: run agents, inspect sessions and traces, run the demo.

Needs the ``cli`` extra (Typer and Rich): ``pip install -e '.[cli]'`` in a
checkout. ``python -m steadyflow`` runs it too. Commands: ``run``, ``demo``,
``confirm``, ``resume``, ``sessions list|show|delete``, ``trace``,
``invocations``, ``usage``, ``dump-request``, ``emulate``, ``serve``, ``worker``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> None:
    """Run the command line (``argv`` defaults to ``sys.argv[1:]``); exits the process."""
    try:
        from ._commands import app
    except ImportError as error:
        print(
            f"steadyflow: the command line needs the cli extra ({error.name} is missing): "
            "pip install 'steadyflow[cli]'",
            file=sys.stderr,
        )
        sys.exit(2)
    app(args=None if argv is None else list(argv), prog_name="steadyflow")
