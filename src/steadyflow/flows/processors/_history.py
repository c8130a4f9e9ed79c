"""Applying an agent's ``HistoryPolicy`` while the contents processor builds a request.

``HistoryView`` lives beside the contents processor's per-(session, branch)
cache and is fed the same events, once each; ``history_contents`` then picks
the request's messages in time proportional to the window, not the session
(``steadyflow.history.window``).

Compaction, when the history passes the cap:

1. the window is cut down to ``keep_fraction`` of the cap;
2. the entries between the previous summary (or the start) and the new cut
   are summarized by one model call (``compaction.summarize``), counted and
   retried like any model call;
3. the summary is appended to the session *from inside the processor*
   (``ctx.session_service.append_event``): request processors cannot yield
   events, and storing it at once is what makes it computed once per
   crossing. It is durable before the agent's model call, so a failed call
   leaves a valid summary behind; it is not yielded to the caller (read it
   from the session: ``steadyflow.history.is_summary_event``);
4. the summary goes at the front of this and later requests, in place of
   the events it covers. The session keeps every event.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ...context import InvocationContext
from ...events import Event
from ...history.policy import HistoryPolicy
from ...history.summary import (
    SUMMARY_PREFIX,
    is_summary_event,
    summary_event,
    summary_through,
)
from ...history.tokens import CONTENT_OVERHEAD_TOKENS, content_tokens, entry_tokens, text_tokens
from ...history.window import HistoryIndex, Window
from ...models.base import BaseLlm
from ...models.llm_request import LlmRequest
from ...types import Content
from ._compaction import render_transcript, summarize

__all__ = ["HistoryView", "history_contents", "warn_if_over"]

logger = logging.getLogger("steadyflow.history")


@dataclass(frozen=True)
class _Summary:
    content: Content
    covers: int  # entries before this index are summarized
    tokens: int


class HistoryView:
    """What the policy needs to know about one (session, branch), kept incrementally."""

    def __init__(self, policy: HistoryPolicy) -> None:
        self.policy = policy
        self.index = HistoryIndex()
        self.event_ids: list[str] = []
        self._entry_of_event: dict[str, int] = {}
        self.summary: _Summary | None = None
        # Token costs are only worth computing when something reads them.
        self._count_tokens = policy.by_tokens or policy.warn_input_tokens is not None

    def observe(self, event: Event, content: Content | None, *, mine: bool) -> None:
        """Take in the next session event and the entry it became (None: no entry).

        ``mine``: the event is the agent's own and on a visible branch (so a
        summary in it is the agent's summary).
        """
        if is_summary_event(event):
            if mine:
                self._take_summary(event)
            return
        if content is None or event.content is None:
            return
        calls: list[tuple[str | None, str]] = []
        responses: list[tuple[str | None, str]] = []
        for part in event.content.parts:
            if part.function_call is not None:
                calls.append((part.function_call.id, part.function_call.name))
            elif part.function_response is not None:
                responses.append((part.function_response.id, part.function_response.name))
        index = self.index.add(
            tokens=entry_tokens(event, content) if self._count_tokens else 0,
            is_user=event.author == "user",
            call_ids=calls,
            response_ids=responses,
        )
        self.event_ids.append(event.id)
        self._entry_of_event[event.id] = index

    def _take_summary(self, event: Event) -> None:
        through = summary_through(event)
        entry = None if through is None else self._entry_of_event.get(through)
        if entry is None or event.content is None:
            logger.warning(
                "ignoring summary event %s: it covers no event this agent sees", event.id
            )
            return
        usage = event.usage_metadata
        if usage is not None and usage.output_tokens > 0:
            tokens = CONTENT_OVERHEAD_TOKENS + text_tokens(SUMMARY_PREFIX) + usage.output_tokens
        else:
            tokens = content_tokens(event.content)
        self.summary = _Summary(event.content, entry + 1, tokens)


def _summary_cost(policy: HistoryPolicy, summary: _Summary) -> int:
    return summary.tokens if policy.by_tokens else 1


async def _compact(
    ctx: InvocationContext, view: HistoryView, contents: list[Content], end: int, model: BaseLlm
) -> None:
    """Summarize the entries after the current summary up to ``end``; store the summary.

    The summary call reads at most one cap's worth of those entries (the
    newest), so adopting a policy on a long session costs one bounded call.
    """
    policy, compaction = view.policy, view.policy.compaction
    assert compaction is not None and policy.cap is not None
    previous = view.summary
    floor = previous.covers if previous is not None else 0
    first = max(floor, view.index.first_fitting(policy.cap, by_tokens=policy.by_tokens, end=end))
    transcript = render_transcript(
        previous.content if previous is not None else None, contents[first:end], first - floor
    )
    summary_limit = (1 - compaction.keep_fraction) * policy.cap / 2
    response, model_name = await summarize(
        ctx,
        compaction=compaction,
        agent_model=model,
        transcript=transcript,
        max_output_tokens=max(1, int(summary_limit)) if policy.by_tokens else None,
    )
    event = summary_event(
        text=response.text,
        author=ctx.agent.name,
        invocation_id=ctx.invocation_id,
        branch=ctx.branch,
        through_event_id=view.event_ids[end - 1],
        events_covered=end,
        model=model_name,
        usage=response.usage_metadata,
    )
    stored = await ctx.session_service.append_event(ctx.session, event)
    view.observe(stored, None, mine=True)
    logger.info(
        "compacted history: agent=%s invocation=%s summarized=%d kept=%d",
        ctx.agent.name,
        ctx.invocation_id,
        end,
        len(view.index) - end,
    )
    _warn_if_summary_fills_the_room(ctx.agent.name, view)


def _warn_if_summary_fills_the_room(agent_name: str, view: HistoryView) -> None:
    """A summary bigger than the room compaction frees makes every step a crossing."""
    policy, summary = view.policy, view.summary
    if not policy.by_tokens or summary is None or policy.compaction is None:
        return
    assert policy.cap is not None
    room = policy.cap * (1 - policy.compaction.keep_fraction)
    if summary.tokens > room:
        logger.warning(
            "summary of agent %s is %d tokens, more than the %d that compaction frees; "
            "the history will cross the cap again at once. Lower the summary's "
            "max_output_tokens or raise max_tokens",
            agent_name,
            summary.tokens,
            int(room),
        )


async def _window(
    ctx: InvocationContext, view: HistoryView, contents: list[Content], model: BaseLlm
) -> Window:
    policy, index = view.policy, view.index
    cap = policy.cap
    if cap is None:
        return index.window(0)
    summary = view.summary if policy.compaction is not None else None
    floor = summary.covers if summary is not None else 0
    reserved = _summary_cost(policy, summary) if summary is not None else 0
    window = index.fit(cap, by_tokens=policy.by_tokens, floor=floor, reserved=reserved)
    if policy.compaction is None or window.start <= floor:
        return window
    keep = max(1, int(cap * policy.compaction.keep_fraction))
    target = index.fit(
        keep, by_tokens=policy.by_tokens, floor=floor, reserved=0 if policy.by_tokens else 1
    )
    # A large previous summary can leave less room than ``keep``: never cut before ``window``.
    cut = target if target.start >= window.start else window
    await _compact(ctx, view, contents, cut.start, model)
    return cut


async def history_contents(
    ctx: InvocationContext, view: HistoryView, contents: list[Content], model: BaseLlm
) -> tuple[list[Content], int]:
    """The messages a request replays under ``view.policy``, and their token estimate.

    ``contents`` are the view's entries (index-aligned); ``model`` is the
    agent's model (the default compaction model).
    """
    window = await _window(ctx, view, contents, model)
    sent = [contents[i] for i in window.pinned] + contents[window.start :]
    tokens = window.tokens
    summary = view.summary if view.policy.compaction is not None else None
    if summary is not None and window.start >= summary.covers:
        sent.insert(0, summary.content)
        tokens += summary.tokens
    return sent, tokens


def warn_if_over(
    ctx: InvocationContext, policy: HistoryPolicy, request: LlmRequest, history_tokens: int
) -> None:
    """Log a WARNING when the request's estimated input tokens pass ``warn_input_tokens``."""
    threshold = policy.warn_input_tokens
    if threshold is None:
        return
    instruction = text_tokens(request.config.system_instruction or "")
    total = history_tokens + instruction
    if total <= threshold:
        return
    logger.warning(
        "large request: agent=%s invocation=%s estimated_input_tokens=%d threshold=%d "
        "(history %d in %d messages, system instruction %d)",
        ctx.agent.name,
        ctx.invocation_id,
        total,
        threshold,
        history_tokens,
        len(request.contents),
        instruction,
        extra={
            "agent": ctx.agent.name,
            "invocation_id": ctx.invocation_id,
            "estimated_input_tokens": total,
            "warn_input_tokens": threshold,
        },
    )
