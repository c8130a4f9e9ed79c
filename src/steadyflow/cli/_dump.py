"""``steadyflow dump-request AGENT --session ID``: the request the next step would send.

When a model "forgot" something, look at what it was sent: this rebuilds
the ``LlmRequest`` exactly as the next step would (the same request
processors over the stored session, for the agent the next turn goes to)
and prints it as JSON, null fields left out. ``--message`` adds a user
message first, as the next turn would, without storing it. Before-model callbacks are not run (they
may have side effects); they see this request and may still change it.
"""

from __future__ import annotations

import sys

from ..agents.llm_agent import LlmAgent
from ..context import InvocationContext, LlmCallBudget, new_invocation_id
from ..events import Event
from ..run_config import RunConfig
from ..runner import Runner
from ..types import Content
from ._console import is_plain, make_console
from ._errors import CliError, user_errors
from ._loader import load_agent, override_model
from ._store import find_session, open_store

__all__ = ["dump_request"]


async def dump_request(
    agent_spec: str,
    session_id: str,
    url: str,
    app: str | None,
    user: str | None,
    model: str | None,
    message: str | None,
) -> None:
    """Print the next step's ``LlmRequest`` as JSON."""
    root = load_agent(agent_spec)
    if model:
        override_model(root, model)
    async with open_store(url) as service:
        session = await find_session(service, url, session_id, app, user)
        runner = Runner(app_name=session.app_name, agent=root, session_service=service)
        user_content = None
        if message is not None:
            user_content = Content.from_text(message)
            session.events.append(Event(author="user", content=user_content))
        agent = runner.agent_for(session)
        if not isinstance(agent, LlmAgent):
            raise CliError(f"the next turn goes to {agent.name!r}, which is not an LlmAgent")
        ctx = InvocationContext(
            invocation_id=new_invocation_id(),
            agent=agent,
            session=session,
            session_service=service,
            run_config=RunConfig(),
            user_content=user_content,
            budget=LlmCallBudget(0),
        )
        try:
            with user_errors():
                # A cached_property does not match FlowAgent's property for pyright (mypy agrees).
                request = await agent.flow.preprocess(agent, ctx)  # pyright: ignore[reportArgumentType]
        except ImportError as error:
            raise CliError(str(error)) from error
    text = request.model_dump_json(indent=2, exclude_none=True)
    console = make_console()
    if is_plain(console):
        sys.stdout.write(text + "\n")
    else:
        console.print_json(text)
