"""The event-storing loop under ``Runner``: store each complete event, then yield it.

Split out of ``runner.py`` so the runner keeps its public methods and this
module owns what every invocation (new, resumed or continued) shares: the
response cap, the plugins' ``on_event_callback``, the append before the
yield, the plugins told how a run that ended early ended, and closing the
record last, whatever ended the invocation.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

from ._aio import aclose
from ._response_cap import ResponseMeter
from .agents.base_agent import BaseAgent
from .context import InvocationContext
from .durable import RecordKeeper
from .errors import ConfigurationError
from .events import Event
from .flows._callbacks import run_callbacks
from .plugins import PluginManager
from .sessions.base import Session
from .types import Content

__all__ = ["Started", "stored_events", "user_message", "with_plugins"]


Started = tuple[Session, InvocationContext, RecordKeeper, AsyncIterator[Event]]
"""A started invocation: its session, context, record keeper and the agent's events.

A plain tuple rather than a named one: made once per invocation and
unpacked at once, it costs no call (a named tuple's ``__new__`` is Python).
"""


_IDENTITY = ("id", "invocation_id", "author", "branch", "timestamp", "partial")
"""What makes an event the one the agent produced: a replacement keeps these (as in ADK)."""


def _in_place_of(original: Event, replacement: object) -> Event:
    """``replacement`` (an ``on_event_callback``'s answer) with ``original``'s identity.

    A plugin changes what an event says, not which event it is: a new
    ``Event(...)`` would otherwise bring a fresh id and an empty author.
    """
    if not isinstance(replacement, Event):
        raise ConfigurationError(
            f"on_event_callback must return an Event or None, got {type(replacement).__name__}"
        )
    if replacement is original:
        return original
    return replacement.model_copy(update={field: getattr(original, field) for field in _IDENTITY})


async def stored_events(
    start: Callable[[], Awaitable[Started | None]],
    *,
    plugins: PluginManager,
    max_response_bytes: int | None,
) -> AsyncIterator[Event]:
    """Start the invocation, store each complete event (with the record) before yielding it.

    ``start`` runs on the first ``__anext__`` (None: nothing to run). Taking
    it here rather than re-yielding from a generator of the runner's saves
    one generator layer per event. The record is closed last.
    """
    started = await start()
    if started is None:
        return
    session, ctx, keeper, events = started
    on_event = plugins.hooks("on_event_callback") if plugins.plugins else ()
    error: BaseException | None = None
    limit = max_response_bytes
    meter = ResponseMeter(limit) if limit is not None else None
    try:
        async for event in events:
            if meter is not None:
                meter.check(event)
            if on_event:
                replaced = await run_callbacks(on_event, invocation_context=ctx, event=event)
                if replaced is not None:
                    event = _in_place_of(event, replaced)
            if not event.partial:
                event = await keeper.append(session, event)
            yield event
    except BaseException as exc:
        error = exc
        if plugins.plugins:
            await _tell_plugins_the_end(plugins, ctx, exc)
        raise
    finally:
        # Closed before the record is: the steps its trace records have ended.
        try:
            try:
                await aclose(events)
            finally:
                await ctx.usage.close()  # the last spend charges are stored
        finally:
            trace = ctx.trace.finish(
                invocation_id=ctx.invocation_id,
                agent_name=ctx.agent.name,
                error=error,
                budget_used=ctx.budget.count,
                budget_limit=ctx.budget.limit,
            )
            await keeper.close(trace, error, session)


async def _tell_plugins_the_end(
    plugins: PluginManager, ctx: InvocationContext, ended: BaseException
) -> None:
    """Every plugin hears why the run ended early: an error, or a stop (cancelled, shut down)."""
    if isinstance(ended, Exception):
        await plugins.notify("on_run_error_callback", invocation_context=ctx, error=ended)
    else:
        await plugins.notify("on_run_cancelled_callback", invocation_context=ctx)


async def user_message(plugins: PluginManager, ctx: InvocationContext, message: Content) -> Content:
    """``message`` after the plugins' ``on_user_message_callback`` (a replacement is kept).

    Runs before anything is stored: a hook that raises fails the run (the
    plugins hear of it) with nothing written.
    """
    try:
        replaced = await run_callbacks(
            plugins.hooks("on_user_message_callback"), invocation_context=ctx, user_message=message
        )
        if replaced is not None and (not isinstance(replaced, Content) or not replaced.parts):
            raise ConfigurationError(
                "on_user_message_callback must return a Content with parts or None, "
                f"got {replaced!r}"
            )
    except Exception as error:
        await plugins.notify("on_run_error_callback", invocation_context=ctx, error=error)
        raise
    if replaced is None:
        return message
    ctx.user_content = replaced
    return replaced


async def with_plugins(
    plugins: PluginManager, agent: BaseAgent, ctx: InvocationContext, *, live: bool
) -> AsyncIterator[Event]:
    """The agent's events between the plugins' before-run and after-run hooks."""
    answer = await run_callbacks(plugins.hooks("before_run_callback"), invocation_context=ctx)
    if answer is not None:
        yield Event(invocation_id=ctx.invocation_id, author=agent.name, content=answer)
        return
    events = agent.run_live(ctx) if live else agent.run_async(ctx)
    try:
        async for event in events:
            yield event
    finally:
        await aclose(events)
    await run_callbacks(plugins.hooks("after_run_callback"), invocation_context=ctx)
