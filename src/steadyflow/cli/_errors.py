"""Bad input becomes one line on stderr and exit code 2, never a traceback.

Commands raise ``CliError`` for what the user must fix (a missing file, an
unknown model, an unreachable database, a bad flag value); ``user_errors``
turns the library's own configuration errors into ``CliError`` in one place.
Anything else is a bug or a failed run: one line and exit code 1, with the
traceback only under ``--debug``.
"""

from __future__ import annotations

import traceback
from collections.abc import Generator
from contextlib import contextmanager

from rich.markup import escape

from ..errors import ConfigurationError, SchemaVersionError, SessionNotFoundError
from ._console import make_console

__all__ = ["BAD_INPUT", "FAILED", "CliError", "report", "user_errors"]

BAD_INPUT = 2
FAILED = 1


class CliError(Exception):
    """Something the user must fix; the message says what and what to do.

    Args:
        message: one line, starting with what is wrong.
        exit_code: 2 for bad input (the default), 1 for a run that failed.
    """

    def __init__(self, message: str, exit_code: int = BAD_INPUT) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@contextmanager
def user_errors() -> Generator[None, None, None]:
    """Turn the library's configuration errors into ``CliError``."""
    try:
        yield
    except (ConfigurationError, SessionNotFoundError, SchemaVersionError) as error:
        raise CliError(_one_line(str(error))) from error


def _one_line(text: str) -> str:
    return " ".join(text.split())


def report(error: BaseException, *, debug: bool, exit_code: int) -> int:
    """Print ``error`` as one line on stderr (plus its traceback under ``--debug``)."""
    console = make_console(stderr=True)
    if debug:
        console.print(escape("".join(traceback.format_exception(error))), end="")
    if isinstance(error, CliError):
        message = str(error)
    else:
        message = f"{type(error).__name__}: {error}"
        if not debug:
            message += " (rerun with --debug for the traceback)"
    console.print(f"[bold red]error:[/] {escape(_one_line(message))}")
    return exit_code
