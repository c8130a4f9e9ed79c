"""One turn on the command line, whichever command started it: ``run``, ``resume``, ``confirm``.

The agent is prepared the same way for each (``prepare_agent``): loaded with
its file's ``run_config``, ``--model`` applied, its models checked, and each
model wrapped so its attempts are reported.

The turn's events are printed as they come, each provider attempt and wait
live (``LiveReporter``), then one summary line read from the invocation's
stored trace, so a resumed or confirmed turn looks like the turn ``run``
shows. Confirmation requests are not printed as the raw
``steadyflow_request_confirmation`` call: the turn hands them back, and the
command asks the person or says how to answer (``_confirm``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from ..agents.base_agent import BaseAgent
from ..errors import (
    ConfigurationError,
    ConfirmationError,
    NothingToResumeError,
    StaleInvocationError,
)
from ..events import Event
from ..run_config import RunConfig
from ..runner import Runner
from ..tools import ConfirmationRequest, confirmation_requests
from ..trace_record import InvocationTrace
from ._check import check_models
from ._errors import FAILED, CliError, user_errors
from ._live import LiveReporter, observe_models
from ._loader import load_agent_file, override_model
from ._render import EventPrinter

__all__ = ["TurnOutcome", "play_turn", "prepare_agent"]

_NOTHING_RAN = (NothingToResumeError, StaleInvocationError, ConfirmationError)
"""Refusals before anything ran: one line, no summary of an older invocation."""


def prepare_agent(
    spec: str,
    *,
    model: str | None,
    check: bool,
    emulator: bool,
    reporter: LiveReporter | None,
) -> tuple[BaseAgent, RunConfig | None]:
    """The agent ``spec`` names, ready to run, and its file's ``run_config``.

    Raises:
        CliError: the agent cannot be loaded, a model is unknown, lacks its
            key or its SDK.
    """
    root, settings = load_agent_file(spec)
    if model:
        override_model(root, model)
    if check:
        check_models(root, emulator=emulator)
    if reporter is not None:
        try:
            with user_errors():
                observe_models(root, reporter)
        except ImportError as error:
            raise CliError(str(error)) from error
    return root, settings


@dataclass
class TurnOutcome:
    """What a turn left to do: the confirmation requests it paused on."""

    requests: list[ConfirmationRequest] = field(default_factory=list[ConfirmationRequest])


async def play_turn(
    runner: Runner,
    user_id: str,
    session_id: str,
    events: AsyncIterator[Event],
    printer: EventPrinter,
) -> TurnOutcome:
    """Print ``events`` and the turn's summary line.

    Raises:
        CliError: the turn failed (exit code 2 for a configuration error,
            1 otherwise), after its summary was printed.
    """
    outcome = TurnOutcome()
    failure: Exception | None = None
    reporter = printer.reporter
    try:
        if reporter is None:
            await _show(events, printer, outcome)
        else:
            with reporter.retry_logs():
                await _show(events, printer, outcome)
    except _NOTHING_RAN as error:
        raise CliError(f"cannot continue: {' '.join(str(error).split())}") from error
    except Exception as error:
        failure = error
    printer.summary(await _last_trace(runner, user_id, session_id), session_id)
    if failure is not None:
        code = 2 if isinstance(failure, ConfigurationError) else FAILED
        text = " ".join(str(failure).split())
        raise CliError(f"the turn failed: {type(failure).__name__}: {text}", code) from failure
    return outcome


async def _show(events: AsyncIterator[Event], printer: EventPrinter, outcome: TurnOutcome) -> None:
    async for event in events:
        requests = [] if event.partial else confirmation_requests(event)
        outcome.requests.extend(requests)
        if requests and not printer.jsonl:
            continue  # the command shows them as questions
        printer.show(event)


async def _last_trace(runner: Runner, user_id: str, session_id: str) -> InvocationTrace | None:
    records = await runner.session_service.list_invocations(
        app_name=runner.app_name, user_id=user_id, session_id=session_id
    )
    traces = [r.trace for r in records if r.trace is not None]
    return traces[-1] if traces else None
