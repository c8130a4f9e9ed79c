"""``run_turn``: run one turn of an agent in memory and keep everything it did."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..agents.base_agent import BaseAgent
from ..events import Event
from ..run_config import RunConfig
from ..runner import Runner
from ..sessions.base import Session
from ..sessions.in_memory import InMemorySessionService
from ..sessions.invocations import InvocationRecord
from ..trace_record import InvocationTrace
from ..types import Content

__all__ = ["TurnResult", "run_turn"]


@dataclass
class TurnResult:
    """What one turn produced.

    Attributes:
        events: every yielded event, partials included, in order.
        error: the exception that ended the turn, if any.
        runner: the runner (its session service holds the stored session).
        session_id: the session the turn ran in.
    """

    events: list[Event] = field(default_factory=lambda: [])
    error: BaseException | None = None
    runner: Runner | None = None
    session_id: str = ""
    user_id: str = "user"

    @property
    def complete_events(self) -> list[Event]:
        """The non-partial events (the ones the session stores)."""
        return [e for e in self.events if not e.partial]

    @property
    def final_text(self) -> str:
        """Text of the last complete event."""
        complete = self.complete_events
        return complete[-1].text if complete else ""

    async def stored_session(self) -> Session:
        """The session as the store now holds it."""
        assert self.runner is not None
        session = await self.runner.session_service.get_session(
            app_name=self.runner.app_name, user_id=self.user_id, session_id=self.session_id
        )
        assert session is not None
        return session

    async def stored_invocations(self) -> list[InvocationRecord]:
        """The session's invocation records as the store now holds them, oldest first."""
        assert self.runner is not None
        return await self.runner.session_service.list_invocations(
            app_name=self.runner.app_name, user_id=self.user_id, session_id=self.session_id
        )

    async def stored_traces(self) -> list[InvocationTrace]:
        """The traces of the session's finished invocations, oldest first."""
        return [r.trace for r in await self.stored_invocations() if r.trace is not None]


async def run_turn(
    agent: BaseAgent,
    message: Content | str,
    *,
    run_config: RunConfig | None = None,
    runner: Runner | None = None,
    session_id: str | None = None,
    user_id: str = "user",
) -> TurnResult:
    """Run one turn, capturing events and the error (if any) instead of raising.

    Pass ``runner`` and ``session_id`` to continue an existing conversation.
    """
    if runner is None:
        runner = Runner(app_name="test_app", agent=agent, session_service=InMemorySessionService())
    if session_id is None:
        session_id = (await runner.create_session(user_id=user_id)).id
    result = TurnResult(runner=runner, session_id=session_id, user_id=user_id)
    try:
        async for event in runner.run_async(
            user_id=user_id, session_id=session_id, new_message=message, run_config=run_config
        ):
            result.events.append(event)
    except Exception as error:  # the caller asserts on it
        result.error = error
    return result
