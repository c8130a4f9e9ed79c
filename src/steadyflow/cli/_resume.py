"""``steadyflow resume AGENT SESSION_ID``: continue a session's crashed invocation.

Loads the agent, finds the session (its app and user come from the id on
SQL stores), and resumes its unfinished invocation with
``Runner.resume_async``: nothing committed is done again. Nothing to resume
(finished, held by a live process, waiting for a person) or another process
resuming first is a one-line error.

``steadyflow resume AGENT --all-expired`` (from cron or a supervisor)
resumes every invocation of the app (``--app``, default the agent's name)
whose lease expired or whose same-host owner is gone, in every session
(``steadyflow.durable.resume_expired``). It prints one line per unfinished
invocation it found (resumed, failed, taken by another process, live,
waiting, corrupt: a record that cannot be read, skipped) and exits 1 when
one of the resumes failed or a record was corrupt.
"""

from __future__ import annotations

from rich.markup import escape

from ..durable import SweepResult, resume_expired
from ..errors import NothingToResumeError, StaleInvocationError
from ..runner import Runner
from ._console import make_console
from ._errors import FAILED, CliError
from ._loader import load_agent
from ._store import find_session, open_store

__all__ = ["resume_all_command", "resume_command"]


async def resume_command(
    agent_spec: str, session_id: str | None, url: str, app: str | None, user: str | None
) -> None:
    """Resume ``session_id``'s unfinished invocation and print its events."""
    if session_id is None:
        raise CliError("give the SESSION_ID to resume, or --all-expired to resume every one")
    root = load_agent(agent_spec)
    console = make_console()
    async with open_store(url) as service:
        session = await find_session(service, url, session_id, app, user)
        runner = Runner(app_name=session.app_name, agent=root, session_service=service)
        events = runner.resume_async(user_id=session.user_id, session_id=session.id)
        try:
            async for event in events:
                if event.partial:
                    continue
                for call in event.get_function_calls():
                    console.print(f"{escape(event.author)} → {escape(call.name)}({call.args})")
                if event.text:
                    console.print(f"[bold]{escape(event.author)}:[/] {escape(event.text)}")
        except (NothingToResumeError, StaleInvocationError) as error:
            raise CliError(f"cannot resume: {error}") from error


async def resume_all_command(
    agent_spec: str, session_id: str | None, url: str, app: str | None, user: str | None
) -> None:
    """Resume every expired invocation of the app; one line each; exit 1 if one failed.

    A record that cannot be read is one ``corrupt`` line (and exit 1); the
    others are resumed all the same.
    """
    if session_id is not None or user is not None:
        raise CliError("--all-expired resumes every session of the app: drop SESSION_ID and --user")
    root = load_agent(agent_spec)
    console = make_console()
    failed = corrupt = found = 0
    async with open_store(url) as service:
        runner = Runner(app_name=app or root.name, agent=root, session_service=service)
        async for outcome in resume_expired(runner):
            found += 1
            failed += outcome.result is SweepResult.FAILED
            corrupt += outcome.result is SweepResult.CORRUPT
            console.print(escape(outcome.line()), soft_wrap=True)
    if not found:
        console.print(f"no unfinished invocation of app {escape(runner.app_name)!r}")
    problems: list[str] = []
    if failed:
        problems.append(f"{failed} of {found - corrupt} resumed invocations failed")
    if corrupt:
        problems.append(f"{corrupt} unreadable invocation record(s) skipped")
    if problems:
        raise CliError("; ".join(problems), exit_code=FAILED)
