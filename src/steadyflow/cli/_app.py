"""The Typer app and its ``sessions`` group, with the root options (--debug, --version).

Each ``_commands_*`` module registers its commands on these; ``_commands`` imports
them in help order.
"""

from __future__ import annotations

from typing import Annotated

import typer

from ._group import SteadyflowGroup

__all__ = ["app", "sessions_app"]

app = typer.Typer(
    cls=SteadyflowGroup,
    name="steadyflow",
    help="Run steadyflow agents, inspect their sessions and traces, and run the demo.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # Click's plain help: wraps long defaults instead of cutting them
    context_settings={"help_option_names": ["-h", "--help"]},
)
sessions_app = typer.Typer(
    cls=SteadyflowGroup,
    help="List, show and delete stored sessions.",
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(sessions_app, name="sessions")


def _print_version(asked: bool) -> None:
    if asked:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("steadyflow")
        except PackageNotFoundError:  # a source tree on sys.path, not installed
            number = "0+unknown"
        typer.echo(f"steadyflow {number}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: Annotated[
        bool, typer.Option("--debug", help="Show tracebacks (accepted anywhere on the line).")
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Run steadyflow agents, inspect their sessions and traces, and run the demo."""
    del debug, version  # --debug is read by SteadyflowGroup before parsing
