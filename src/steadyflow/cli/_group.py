"""One place where every command's failures become one line and an exit code.

``SteadyflowGroup`` runs the Typer app with Click's standalone mode off and
catches what comes out: bad input (a usage error or a ``CliError``) prints
one line and exits 2, a failed run exits 1, ``Ctrl-C`` exits 130. A
traceback appears only with ``--debug``, which is accepted anywhere on the
command line.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from typer import Abort
from typer.core import TyperGroup

from ._errors import BAD_INPUT, FAILED, CliError, report

try:  # Typer >= 0.20 vendors Click
    from typer._click.exceptions import ClickException, UsageError
except ImportError:  # pragma: no cover - older Typer on Click
    from click.exceptions import (  # type: ignore[assignment,no-redef,unused-ignore]
        ClickException,
        UsageError,
    )

__all__ = ["DEBUG_FLAG", "SteadyflowGroup"]

DEBUG_FLAG = "--debug"
INTERRUPTED = 130


class SteadyflowGroup(TyperGroup):
    """Runs a command and turns every failure into one line and an exit code."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Parse ``args`` and run; exit 2 on bad input, 1 on a failed run."""
        argv = list(sys.argv[1:] if args is None else args)
        debug = DEBUG_FLAG in argv
        argv = [a for a in argv if a != DEBUG_FLAG]
        try:
            code = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
        except UsageError as error:
            if type(error).__name__ == "NoArgsIsHelpError" and error.ctx is not None:
                print(error.ctx.get_help())  # a group named without a command: its help
                code = 0
            else:
                where = error.ctx.command_path if error.ctx is not None else None
                hint = f"; see '{where} --help'" if where else ""
                message = error.format_message().rstrip(".")  # Click ends it with a full stop
                code = report(CliError(message + hint), debug=False, exit_code=BAD_INPUT)
        except ClickException as error:
            code = report(CliError(error.format_message()), debug=False, exit_code=error.exit_code)
        except (Abort, KeyboardInterrupt):
            code = report(CliError("interrupted"), debug=False, exit_code=INTERRUPTED)
        except CliError as error:
            code = report(error, debug=debug, exit_code=error.exit_code)
        except Exception as error:
            code = report(error, debug=debug, exit_code=FAILED)
        code = code if isinstance(code, int) else 0
        if standalone_mode:
            sys.exit(code)
        return code
