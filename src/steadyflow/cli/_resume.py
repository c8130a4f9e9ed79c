"""``steadyflow resume AGENT SESSION_ID``: continue a session's crashed invocation.

Loads the agent, finds the session (its app and user come from the id on
SQL stores), and resumes its unfinished invocation with
``Runner.resume_async``: nothing committed is done again. Nothing to resume
(finished, held by a live process, waiting for a person) or another process
resuming first is a one-line error.
"""

from __future__ import annotations

from rich.markup import escape

from ..errors import NothingToResumeError, StaleInvocationError
from ..runner import Runner
from ._console import make_console
from ._errors import CliError
from ._loader import load_agent
from ._store import find_session, open_store

__all__ = ["resume_command"]


async def resume_command(
    agent_spec: str, session_id: str, url: str, app: str | None, user: str | None
) -> None:
    """Resume ``session_id``'s unfinished invocation and print its events."""
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
