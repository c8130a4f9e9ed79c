"""``Runner``: the entry point that ties an agent to a session store.

One call of ``run_async`` is one *invocation*: the user's message is
appended to the session exactly once, the agent runs, and every complete
event is stored before it is yielded (a caller that received an event can
rely on it being stored). Partial events are yielded but never stored.
Errors (``LlmCallsLimitExceededError``, a model error no callback handled)
propagate to the caller after the events already yielded; what was stored
stays consistent: each event is appended whole or not at all.

Every invocation has a stored record beside the session
(``InvocationRecord``: status, calls used, owner and lease, its trace),
created in the same commit as the user's message and closed when the
invocation ends (also in error, or when the caller stops early). The record
is bookkeeping, not conversation: ``session.events`` never holds it. Closing
it is conditional on the record's own revision, not the session's, so a
finished turn keeps its trace whatever other writers appended meanwhile.

A message of confirmation answers continues the ``WAITING`` invocation (same id).
Any other message, while such an invocation waits, supersedes it (its
waiting calls are declined, the model is told) or is refused, as
``RunConfig.on_pending_confirmation`` says (``durable._supersede``).
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import Any

from ._aio import iterate_sync
from ._confirmation import parse_answers
from ._response_cap import DEFAULT_MAX_RESPONSE_BYTES, checked_limit
from ._routing import agent_to_run
from ._runner_resume import continue_invocation
from ._runner_store import Started, stored_events, user_message, with_plugins
from .agents.base_agent import BaseAgent
from .context import InvocationContext, LlmCallBudget, new_invocation_id
from .durable import (
    LeaseRenewer,
    RecordKeeper,
    answers_taker,
    claim_taker,
    may_be_waiting,
    settle_pending,
    start_record,
)
from .errors import ConfigurationError, SessionNotFoundError
from .events import Event
from .live_request_queue import LiveRequestQueue
from .plugins import BasePlugin, PluginManager
from .run_config import RunConfig, StreamingMode
from .sessions.base import BaseSessionService, Session
from .sessions.in_memory import InMemorySessionService
from .sessions.invocations import InvocationRecord
from .sessions.url import open_session_service
from .tools.base_toolset import close_toolsets
from .types import Content
from .usage._meter import UsageMeter
from .usage._stores import default_spend_store
from .usage.spend import SpendLimits, SpendStore, Who

__all__ = ["InMemoryRunner", "Runner"]

logger = logging.getLogger("steadyflow.runner")


def _open_service(service: BaseSessionService | str) -> BaseSessionService:
    if isinstance(service, BaseSessionService):
        return service
    return open_session_service(service)


class Runner:
    """Runs an agent for one app against a session store.

    Args:
        app_name: the app's name; sessions are keyed by app, user and id.
        agent: the root agent.
        session_service: a store, or a URL: ``memory://``,
            ``sqlite:///path/to.db``, ``postgresql://user@host/db``.
        plugins: ``steadyflow.plugins.BasePlugin`` objects whose hooks apply
            to every agent this runner runs, before the agents' own callbacks
            (the server's request recorder is one).
        lease_seconds: how long a running invocation's claim holds without
            renewal (see docs/durability.md).
        max_response_bytes: the largest model response (text, bytes, call
            arguments), streamed or not; past it the invocation fails with
            ``ModelResponseTooLargeError``, the stream is closed and nothing
            of the answer is stored. Default 8 MiB; None turns it off.
        spend_store: where ``RunConfig.spend_limits`` keep spend
            (``steadyflow.usage.spend``); default: the session database when
            it is SQL, else one in-memory store per session service.

    A plugin's ``on_user_message_callback`` may replace a new message before
    it is stored; ``before_run_callback`` may answer instead of the agent (its
    ``Content`` becomes the agent's one event); ``on_event_callback`` may
    replace what each event says (not which event it is) before it is stored
    and yielded (so what you receive is what was stored);
    ``after_run_callback`` runs once the invocation ended without an error,
    ``on_run_error_callback`` once it ended in one, and
    ``on_run_cancelled_callback`` once it was stopped. ``close()`` closes
    the plugins (``BasePlugin.close``).
    """

    def __init__(
        self,
        *,
        app_name: str,
        agent: BaseAgent,
        session_service: BaseSessionService | str,
        plugins: Sequence[BasePlugin] = (),
        lease_seconds: float = 30.0,
        max_response_bytes: int | None = DEFAULT_MAX_RESPONSE_BYTES,
        spend_store: SpendStore | None = None,
    ) -> None:
        if not lease_seconds > 0:
            raise ConfigurationError(f"lease_seconds must be > 0, got {lease_seconds!r}")
        self.lease_seconds = float(lease_seconds)
        self._renewer = LeaseRenewer(self.lease_seconds / 3)
        self.max_response_bytes = checked_limit(max_response_bytes)
        self.app_name = app_name
        self.agent = agent
        self.session_service = _open_service(session_service)
        self.plugins = PluginManager(plugins)
        self.spend_store = spend_store or default_spend_store(self.session_service)

    async def create_session(
        self, *, user_id: str, session_id: str | None = None, state: dict[str, Any] | None = None
    ) -> Session:
        """Create a session for this app."""
        return await self.session_service.create_session(
            app_name=self.app_name, user_id=user_id, session_id=session_id, state=state
        )

    def agent_for(self, session: Session) -> BaseAgent:
        """The agent the next turn of ``session`` goes to (the CLI's ``dump-request`` asks)."""
        return agent_to_run(self.agent, session)

    async def _load(self, user_id: str, session_id: str) -> Session:
        session = await self.session_service.get_session(
            app_name=self.app_name, user_id=user_id, session_id=session_id
        )
        if session is None:
            raise SessionNotFoundError(self.app_name, user_id, session_id)
        return session

    def _context(
        self,
        session: Session,
        run_config: RunConfig,
        user_content: Content | None,
        invocation_id: str | None = None,
    ) -> InvocationContext:
        invocation_id = invocation_id or new_invocation_id()
        spend = None
        if run_config.spend_limits:
            who = Who(session.app_name, session.user_id, session.id, invocation_id)
            spend = SpendLimits(run_config.spend_limits, self.spend_store, who)
        return InvocationContext(
            invocation_id=invocation_id,
            agent=self.agent,
            session=session,
            session_service=self.session_service,
            run_config=run_config,
            user_content=user_content,
            budget=LlmCallBudget(run_config.max_llm_calls),
            plugins=self.plugins,
            usage=UsageMeter(run_config.usage_limits, run_config.prices, spend),
        )

    def _keeper(self, record: InvocationRecord, ctx: InvocationContext) -> RecordKeeper:
        return RecordKeeper(
            self.session_service,
            record,
            ctx.budget,
            self.lease_seconds,
            self._renewer,
            usage=ctx.usage,
        )

    def run_async(
        self,
        *,
        user_id: str,
        session_id: str,
        new_message: Content | str,
        run_config: RunConfig | None = None,
    ) -> AsyncIterator[Event]:
        """Run one invocation for the user's message, yielding its events.

        Confirmation answers (``confirmation_answer``) as ``new_message``
        continue the waiting invocation instead (docs/confirmation.md).

        Any other message while confirmation requests wait supersedes them
        (``RunConfig.on_pending_confirmation``).

        Raises:
            ConfirmationError: an answer that fits no waiting request.
            ConfirmationPendingError: requests wait and the run config says
                ``on_pending_confirmation="raise"`` (nothing was stored).
        """
        if run_config is not None and run_config.streaming_mode is StreamingMode.BIDI:
            raise ValueError("StreamingMode.BIDI runs through Runner.run_live, not run_async")
        message = Content.from_text(new_message) if isinstance(new_message, str) else new_message
        if not message.parts:
            raise ValueError("new_message has no parts")
        answers = None
        for part in message.parts:  # most messages hold no function response: nothing to parse
            if part.function_response is not None:
                answers = parse_answers(message)
                break
        if answers is not None:
            take = answers_taker(self.session_service, message, answers, self.lease_seconds)
            return self._stored(
                functools.partial(
                    continue_invocation, self, user_id, session_id, run_config, take, crashed=False
                )
            )
        config = run_config or RunConfig()
        return self._stored(
            functools.partial(self._start, user_id, session_id, config, message, None)
        )

    def _stored(self, start: Callable[[], Awaitable[Started | None]]) -> AsyncIterator[Event]:
        """The events of the invocation ``start`` starts, each stored before it is yielded.

        Every way in (a message, a live queue, a resume, confirmation
        answers) goes through here; the invocation's record is closed last,
        whatever ended it.
        """
        return stored_events(
            start, plugins=self.plugins, max_response_bytes=self.max_response_bytes
        )

    async def _start(
        self,
        user_id: str,
        session_id: str,
        run_config: RunConfig,
        message: Content | None,
        live_request_queue: LiveRequestQueue | None,
    ) -> Started:
        """Load the session, store the user's message with the new record, start the agent."""
        session = await self._load(user_id, session_id)
        if message is not None and may_be_waiting(session):
            on_pending = run_config.on_pending_confirmation
            await settle_pending(
                self.session_service, session, on_pending=on_pending, now=time.time()
            )
        ctx = self._context(session, run_config, message)
        if message is not None and self.plugins.hooks("on_user_message_callback"):
            message = await user_message(self.plugins, ctx, message)
        user_event = None
        if message is not None:
            user_event = Event(invocation_id=ctx.invocation_id, author="user", content=message)
        root = self.agent  # without sub-agents, the root answers: nothing to ask
        agent = agent_to_run(root, session, user_event) if root.sub_agents else root
        record = start_record(
            invocation_id=ctx.invocation_id,
            app_name=self.app_name,
            user_id=user_id,
            session_id=session_id,
            agent=agent.name,
            max_llm_calls=run_config.max_llm_calls,
            now=time.time(),
            lease_seconds=self.lease_seconds,
        )
        keeper = self._keeper(record, ctx)
        ctx.journal = keeper
        await keeper.start(session, user_event)
        ctx.live_request_queue = live_request_queue
        agent_ctx = ctx.for_agent(agent)
        if self.plugins.plugins:
            events = with_plugins(self.plugins, agent, agent_ctx, live=message is None)
        else:
            events = (
                agent.run_async(agent_ctx) if message is not None else agent.run_live(agent_ctx)
            )
        return session, ctx, keeper, events

    def resume_async(
        self,
        *,
        user_id: str,
        session_id: str,
        invocation_id: str | None = None,
        run_config: RunConfig | None = None,
    ) -> AsyncIterator[Event]:
        """Continue the session's unfinished invocation, yielding its remaining events.

        Nothing committed is done again (docs/durability.md
        says exactly what is and is not redone); the invocation keeps its id
        and its record counts the resume; attempts before the crash count
        against ``max_llm_calls`` (the record's limit unless ``run_config`` says),
        and the tokens and cost used before count against its usage limits
        (the record's ``usage_limits`` unless ``run_config`` says).

        Raises:
            NothingToResumeError: none unfinished, held by a live process, or waiting.
            StaleInvocationError: another process resumed it first.
        """
        take = claim_taker(self.session_service, invocation_id, self.lease_seconds)
        resume = functools.partial(
            continue_invocation, self, user_id, session_id, run_config, take, crashed=True
        )
        return self._stored(resume)

    def resume(
        self,
        *,
        user_id: str,
        session_id: str,
        invocation_id: str | None = None,
        run_config: RunConfig | None = None,
    ) -> Iterator[Event]:
        """Synchronous twin of ``resume_async`` for scripts (not inside an event loop)."""
        events = self.resume_async(
            user_id=user_id,
            session_id=session_id,
            invocation_id=invocation_id,
            run_config=run_config,
        )
        return iterate_sync(events, "resume", self.session_service.close)

    def run(
        self,
        *,
        user_id: str,
        session_id: str,
        new_message: Content | str,
        run_config: RunConfig | None = None,
    ) -> Iterator[Event]:
        """Synchronous twin of ``run_async`` for scripts (not inside an event loop)."""
        events = self.run_async(
            user_id=user_id, session_id=session_id, new_message=new_message, run_config=run_config
        )
        return iterate_sync(events, "run", self.session_service.close)

    def run_live(
        self,
        *,
        user_id: str,
        session_id: str,
        live_request_queue: LiveRequestQueue,
        run_config: RunConfig | None = None,
    ) -> AsyncIterator[Event]:
        """Run a live (BIDI) invocation fed by ``live_request_queue``."""
        run_config = run_config or RunConfig(streaming_mode=StreamingMode.BIDI)
        return self._stored(
            functools.partial(
                self._start, user_id, session_id, run_config, None, live_request_queue
            )
        )

    async def close(self) -> None:
        """Close the agent tree's toolsets (MCP connections), the plugins, then the session store.

        Each is closed even when one before it failed; the first failure is raised.

        Raises:
            PluginError: a plugin's ``close()`` raised or overran (the others were closed).
        """
        await self._renewer.stop()
        try:
            await close_toolsets(self.agent)
        finally:
            try:
                await self.plugins.close()
            finally:
                await self.session_service.close()


class InMemoryRunner(Runner):
    """A ``Runner`` with an in-memory session store, for scripts and tests."""

    def __init__(self, agent: BaseAgent, *, app_name: str = "steadyflow_app") -> None:
        super().__init__(app_name=app_name, agent=agent, session_service=InMemorySessionService())
