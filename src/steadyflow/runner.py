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
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Sequence
from typing import Any

from ._aio import aclose
from ._response_cap import DEFAULT_MAX_RESPONSE_BYTES, ResponseMeter, checked_limit
from .agents.base_agent import BaseAgent
from .context import InvocationContext, LlmCallBudget, new_invocation_id
from .durable import finish_record, start_record
from .errors import ConfigurationError, SessionNotFoundError
from .events import Event
from .flows.callbacks import run_callbacks
from .live_request_queue import LiveRequestQueue
from .plugins import BasePlugin, PluginManager
from .run_config import RunConfig, StreamingMode
from .sessions.base import BaseSessionService, Session
from .sessions.in_memory import InMemorySessionService
from .sessions.invocations import InvocationRecord
from .sessions.url import open_session_service
from .tools.base_toolset import close_toolsets
from .types import Content

__all__ = ["InMemoryRunner", "Runner"]

logger = logging.getLogger("steadyflow.runner")


def _open_service(service: BaseSessionService | str) -> BaseSessionService:
    if isinstance(service, BaseSessionService):
        return service
    return open_session_service(service)


def _caller_of_responses(root: BaseAgent, events: list[Event]) -> BaseAgent | None:
    """The agent whose call the newest message answers, if it is a function response."""
    if not events or events[-1].author != "user":
        return None
    ids = {r.id for r in events[-1].get_function_responses() if r.id}
    if not ids:
        return None
    for event in reversed(events[:-1]):
        if any(call.id in ids for call in event.get_function_calls()):
            return root.find_agent(event.author)
    return None


def _may_keep_conversation(agent: BaseAgent, root: BaseAgent) -> bool:
    """Whether ``agent`` and every ancestor below the root could hand back to its parent."""
    walker: BaseAgent | None = agent
    while walker is not None and walker is not root:
        if not walker.can_transfer_to_parent():
            return False
        walker = walker.parent_agent
    return True


def _agent_to_run(root: BaseAgent, session: Session, message: Event | None = None) -> BaseAgent:
    """The agent that answers the next message of ``session``.

    A function response (a long-running tool's result) goes to the agent
    that made the call. Otherwise the authors are walked back from the
    newest: the first agent that may keep the conversation (it and every
    ancestor up to the root could transfer back to their parent, so the user
    is not stuck with it) answers; with none, the root.
    """
    events = session.events
    if message is not None and message.get_function_responses():
        events = [*events, message]  # not stored yet: the record names the agent first
    caller = _caller_of_responses(root, events)
    if caller is not None:
        return caller
    for event in reversed(session.events):
        if event.author == "user":
            continue
        agent = root.find_agent(event.author)
        if agent is not None and _may_keep_conversation(agent, root):
            return agent
    return root


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
            renewal (see the README's "Durable invocations").
        max_response_bytes: the largest model response (text, bytes, call
            arguments), streamed or not; past it the invocation fails with
            ``ModelResponseTooLargeError``, the stream is closed and nothing
            of the answer is stored. Default 8 MiB; None turns it off.

    A plugin's ``before_run_callback`` may answer instead of the agent (its
    ``Content`` becomes the agent's one event); ``on_event_callback`` may
    replace each event before it is stored and yielded (so what you receive
    is what was stored); ``after_run_callback`` runs once the invocation
    ended without an error.
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
    ) -> None:
        if not lease_seconds > 0:
            raise ConfigurationError(f"lease_seconds must be > 0, got {lease_seconds!r}")
        self.lease_seconds = float(lease_seconds)
        self.max_response_bytes = checked_limit(max_response_bytes)
        self.app_name = app_name
        self.agent = agent
        self.session_service = _open_service(session_service)
        self.plugins = PluginManager(plugins)

    async def create_session(
        self, *, user_id: str, session_id: str | None = None, state: dict[str, Any] | None = None
    ) -> Session:
        """Create a session for this app."""
        return await self.session_service.create_session(
            app_name=self.app_name, user_id=user_id, session_id=session_id, state=state
        )

    def agent_for(self, session: Session) -> BaseAgent:
        """The agent the next turn of ``session`` goes to (the CLI's ``dump-request`` asks)."""
        return _agent_to_run(self.agent, session)

    async def _load(self, user_id: str, session_id: str) -> Session:
        session = await self.session_service.get_session(
            app_name=self.app_name, user_id=user_id, session_id=session_id
        )
        if session is None:
            raise SessionNotFoundError(self.app_name, user_id, session_id)
        return session

    def _context(
        self, session: Session, run_config: RunConfig, user_content: Content | None
    ) -> InvocationContext:
        return InvocationContext(
            invocation_id=new_invocation_id(),
            agent=self.agent,
            session=session,
            session_service=self.session_service,
            run_config=run_config,
            user_content=user_content,
            budget=LlmCallBudget(run_config.max_llm_calls),
            plugins=self.plugins,
        )

    def run_async(
        self,
        *,
        user_id: str,
        session_id: str,
        new_message: Content | str,
        run_config: RunConfig | None = None,
    ) -> AsyncIterator[Event]:
        """Run one invocation for the user's message, yielding its events."""
        run_config = run_config or RunConfig()
        if run_config.streaming_mode is StreamingMode.BIDI:
            raise ValueError("StreamingMode.BIDI runs through Runner.run_live, not run_async")
        message = Content.from_text(new_message) if isinstance(new_message, str) else new_message
        if not message.parts:
            raise ValueError("new_message has no parts")
        return self._invoke(user_id, session_id, run_config, message, None)

    async def _invoke(
        self,
        user_id: str,
        session_id: str,
        run_config: RunConfig,
        message: Content | None,
        live_request_queue: LiveRequestQueue | None,
    ) -> AsyncIterator[Event]:
        """One invocation: a user message (``run_async``) or a live queue (``run_live``).

        Each complete event is stored before it is yielded; the invocation's
        record is closed last, whatever ended it.
        """
        session = await self._load(user_id, session_id)
        ctx = self._context(session, run_config, message)
        user_event = None
        if message is not None:
            user_event = Event(invocation_id=ctx.invocation_id, author="user", content=message)
        agent = _agent_to_run(self.agent, session, user_event)
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
        if user_event is not None:
            await self.session_service.append_event_and_record(session, user_event, record)
        else:
            await self.session_service.create_invocation(record)
        ctx.live_request_queue = live_request_queue
        agent_ctx = ctx.for_agent(agent)
        if self.plugins.plugins:
            events = self._with_plugins(agent, agent_ctx, live=message is None)
        else:
            events = (
                agent.run_async(agent_ctx) if message is not None else agent.run_live(agent_ctx)
            )
        on_event = self.plugins.hooks("on_event_callback")
        error: BaseException | None = None
        limit = self.max_response_bytes
        meter = ResponseMeter(limit) if limit is not None else None
        try:
            async for event in events:
                if meter is not None:
                    meter.check(event)
                if on_event:
                    replaced = await run_callbacks(on_event, invocation_context=ctx, event=event)
                    event = event if replaced is None else replaced
                if not event.partial:
                    event = await self.session_service.append_event(session, event)
                yield event
        except BaseException as exc:
            error = exc
            raise
        finally:
            # Closed before the record is: the steps its trace records have ended.
            try:
                await aclose(events)
            finally:
                await self._close_record(ctx, record, error)

    async def _with_plugins(
        self, agent: BaseAgent, ctx: InvocationContext, *, live: bool
    ) -> AsyncIterator[Event]:
        """The agent's events between the plugins' before-run and after-run hooks."""
        answer = await run_callbacks(
            self.plugins.hooks("before_run_callback"), invocation_context=ctx
        )
        if answer is not None:
            yield Event(invocation_id=ctx.invocation_id, author=agent.name, content=answer)
            return
        events = agent.run_live(ctx) if live else agent.run_async(ctx)
        try:
            async for event in events:
                yield event
        finally:
            await aclose(events)
        await run_callbacks(self.plugins.hooks("after_run_callback"), invocation_context=ctx)

    async def _close_record(
        self, ctx: InvocationContext, record: InvocationRecord, error: BaseException | None
    ) -> None:
        """Store the invocation's end and its trace in its record; a refused write only logs."""
        trace = ctx.trace.finish(
            invocation_id=ctx.invocation_id,
            agent_name=ctx.agent.name,
            error=error,
            budget_used=ctx.budget.count,
            budget_limit=ctx.budget.limit,
        )
        finish_record(record, trace=trace, error=error, llm_calls=ctx.budget.count, now=time.time())
        try:
            await self.session_service.update_invocation(record)
        except Exception as store_error:
            logger.warning(
                "could not store the record of invocation %s: %s: %s",
                ctx.invocation_id,
                type(store_error).__name__,
                store_error,
            )

    def run(
        self,
        *,
        user_id: str,
        session_id: str,
        new_message: Content | str,
        run_config: RunConfig | None = None,
    ) -> Iterator[Event]:
        """Synchronous twin of ``run_async`` for scripts (not inside an event loop)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError(
                "Runner.run cannot be called from a running event loop; use run_async"
            )
        events = self.run_async(
            user_id=user_id, session_id=session_id, new_message=new_message, run_config=run_config
        )
        assert isinstance(events, AsyncGenerator)

        async def next_event() -> Event:
            return await anext(events)

        with asyncio.Runner() as loop:
            try:
                while True:
                    try:
                        yield loop.run(next_event())
                    except StopAsyncIteration:
                        return
            finally:
                loop.run(events.aclose())
                # Connections belong to this loop: close them before it ends.
                loop.run(self.session_service.close())

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
        return self._invoke(user_id, session_id, run_config, None, live_request_queue)

    async def close(self) -> None:
        """Close the agent tree's toolsets (MCP connections) and the session store's connections."""
        try:
            await close_toolsets(self.agent)
        finally:
            await self.session_service.close()


class InMemoryRunner(Runner):
    """A ``Runner`` with an in-memory session store, for scripts and tests."""

    def __init__(self, agent: BaseAgent, *, app_name: str = "steadyflow_app") -> None:
        super().__init__(app_name=app_name, agent=agent, session_service=InMemorySessionService())
