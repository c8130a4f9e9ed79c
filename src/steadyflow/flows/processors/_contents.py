"""Contents request processor: the session's events become the model's contents.

The session is the only transcript, so this runs on every step. To keep a
step's cost flat as a session grows, converted contents are cached per
(session, branch) and only events appended since the last step are
converted; the request gets a fresh list holding the session's own
``Content`` objects (replace entries of ``request.contents`` in callbacks
rather than mutating them, since they are the stored events' contents).

What an agent sees:

- events of its own branch, an ancestor branch or a descendant branch
  (sub-agents of a parallel split do not see each other's work; a later stage
  of the pipeline around the split sees every branch's);
- its own and the user's messages as they are (not those that are only
  empty text or thoughts);
- other agents' messages re-cast as user context ("For context: [x] said ...");
- with ``include_contents="none"``, only the current turn: from the latest
  user message on;
- every call followed by exactly one response, the latest per call; a call
  with none gets one that says why, a response with no call becomes text
  (``_pairing``, the one repair point: whatever the session holds, the
  request is one every provider accepts);
- a call or response marked as a thought is still a call or response (the
  flag is cleared in the request; only text can be a thought);
- never a confirmation pause or answer (between the runtime and a person);
- no call id steadyflow made up (``_client_ids``), as ADK sends none of its own.

With a ``HistoryPolicy`` on the agent (``LlmAgent(history=...)``), a
``HistoryView`` is kept beside the cached contents and the request gets only
the window the policy allows, possibly behind a compaction summary
(``_history.py``); compaction summary events are never conversation.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

from ..._confirmation import confirmation_requests, is_confirmation_event
from ...context import InvocationContext
from ...events import Event
from ...history.policy import HistoryPolicy
from ...history.summary import is_summary_event
from ...history.tokens import content_tokens
from ...models.llm_request import LlmRequest
from ...types import Content, Part
from ._base import RequestProcessor
from ._client_ids import stripped_content, without_client_ids
from ._history import HistoryView, history_contents, warn_if_over
from ._pairing import Unanswered, is_paired_after, makes_calls, needs_repair, repair

if TYPE_CHECKING:
    from .._agent import FlowAgent

__all__ = ["ContentsProcessor", "event_to_content"]

_CACHE_SIZE = 1024


def _visible(event: Event, branch: str | None) -> bool:
    """Same branch, an ancestor's (shared history) or a descendant's (finished work below)."""
    if not event.branch or not branch or branch == event.branch:
        return True
    return branch.startswith(event.branch + ".") or event.branch.startswith(branch + ".")


def _as_context(event: Event) -> Content:
    """Another agent's message, re-cast as context the current agent can read."""
    parts: list[Part] = [Part(text="For context:")]
    assert event.content is not None
    for part in event.content.parts:
        if part.text and not part.thought:
            parts.append(Part(text=f"[{event.author}] said: {part.text}"))
        elif part.function_call is not None:
            call = part.function_call
            parts.append(Part(text=f"[{event.author}] called tool `{call.name}` with {call.args}"))
        elif part.function_response is not None:
            resp = part.function_response
            parts.append(Part(text=f"[{event.author}] `{resp.name}` tool returned {resp.response}"))
    return Content(role="user", parts=parts)


def _note_unanswered(event: Event, unanswered: dict[str, Unanswered]) -> None:
    """Why calls listed as long-running in ``event`` may have no response yet."""
    requests = confirmation_requests(event)
    for request in requests:
        if request.call.id:
            unanswered[request.call.id] = Unanswered.AWAITING_CONFIRMATION
    if not requests:
        for call_id in event.long_running_tool_ids or ():
            unanswered.setdefault(call_id, Unanswered.PENDING)


def _without_thought_flags(content: Content) -> Content:
    """``content`` with its calls and responses no longer marked as thoughts."""
    parts = [
        part.model_copy(update={"thought": None})
        if part.thought and (part.function_call or part.function_response)
        else part
        for part in content.parts
    ]
    return content.model_copy(update={"parts": parts})


def event_to_content(event: Event, agent_name: str, branch: str | None) -> Content | None:
    """The content an agent sees for one event, or None when it sees nothing.

    An event whose parts are all empty text or only thoughts is not replayed;
    a call or a response is never a mere thought (some models mark them so).
    """
    content = event.content
    if content is None or event.partial:
        return None
    # Plain checks first, on every new event: most have no metadata, no call or
    # response (so cannot be a confirmation's), and run on no branch.
    if event.custom_metadata is not None and is_summary_event(event):
        return None
    worth = named = flagged = False  # a part worth replaying; a call; a call marked thought
    for part in content.parts:
        if part.function_call is not None or part.function_response is not None:
            named = worth = True
            flagged = flagged or bool(part.thought)
        if not worth and not part.thought and (part.text or part.has_payload()):
            worth = True
    if not worth or (named and is_confirmation_event(event)):
        return None
    if branch and not _visible(event, branch):
        return None
    if flagged:
        content = _without_thought_flags(content)
    if event.author in ("user", agent_name):
        return content
    return _as_context(event)


class _Converted:
    """One (session, branch)'s converted contents, as far as ``count`` events."""

    __slots__ = ("contents", "count", "history", "last_id", "sent", "unanswered", "unpaired")

    def __init__(self, history: HistoryView | None) -> None:
        self.count = 0
        self.last_id = ""
        self.contents: list[Content] = []
        self.sent: list[Content] = []  # ``contents`` as sent: client call ids stripped
        self.history = history
        self.unpaired = False  # some call or response breaks the invariant (``_pairing``)
        self.unanswered: dict[str, Unanswered] = {}  # why a call may have no response

    def complete(self) -> bool:
        """Whether the contents keep the invariant as they are (``_pairing``)."""
        contents = self.contents
        return not self.unpaired and not (contents and makes_calls(contents[-1]))


class ContentsProcessor(RequestProcessor):
    """Fills ``request.contents`` from the session, incrementally.

    Args:
        pair_responses: keep the invariant (``_pairing``); False replays the
            session's order as it is, unrepaired (for tests of the window).
    """

    def __init__(self, *, pair_responses: bool = True) -> None:
        self.pair_responses = pair_responses
        self._cache: OrderedDict[tuple[str, str | None], _Converted] = OrderedDict()

    async def process(
        self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest
    ) -> LlmRequest:
        """Set the contents the agent sees."""
        built = ContentsProcessor.apply(self, agent, ctx, request)
        if built is not None:
            return built
        events = ctx.session.events
        policy = agent.history
        if agent.include_contents == "none":
            unanswered: dict[str, Unanswered] = {}
            for event in events:
                if event.long_running_tool_ids:
                    _note_unanswered(event, unanswered)
            turn = self._current_turn(events, agent.name, ctx.branch)
            request.contents = without_client_ids(self._paired(turn, unanswered))
            if policy is not None:
                tokens = sum(content_tokens(c) for c in request.contents)
                warn_if_over(ctx, policy, request, tokens)
            return request
        cached = self._converted(ctx, agent.name, policy)
        history = cached.history
        assert history is not None  # without a policy, ``apply`` did the work
        model = agent.canonical_model
        window, tokens = await history_contents(ctx, history, cached.contents, model)
        request.contents = without_client_ids(self._paired(window, cached.unanswered))
        warn_if_over(ctx, history.policy, request, tokens)
        return request

    def apply(
        self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest
    ) -> LlmRequest | None:
        """``process``'s work for the whole history; None with a policy or ``"none"``."""
        if agent.history is not None or agent.include_contents == "none":
            return None
        cached = self._converted(ctx, agent.name, None)
        contents = cached.contents
        if self.pair_responses and not cached.complete():
            request.contents = without_client_ids(repair(contents, cached.unanswered))
        elif request.contents:  # a processor before this one put some there: replaced
            request.contents = list(cached.sent)
        else:  # the request's own new list, filled: no pydantic setattr per step
            request.contents.extend(cached.sent)
        return request

    def _converted(
        self, ctx: InvocationContext, agent_name: str, policy: HistoryPolicy | None
    ) -> _Converted:
        events = ctx.session.events
        key = (ctx.session.id, ctx.branch)
        cached = self._cache.get(key)
        if (
            cached is None
            or cached.count > len(events)
            or (cached.count and events[cached.count - 1].id != cached.last_id)
            or (cached.history.policy if cached.history is not None else None) is not policy
        ):
            cached = _Converted(None if policy is None else HistoryView(policy))
            self._cache[key] = cached
            if len(self._cache) > _CACHE_SIZE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        history, contents, branch = cached.history, cached.contents, ctx.branch
        for index in range(cached.count, len(events)):  # islice would walk the prefix
            event = events[index]
            if event.long_running_tool_ids:
                _note_unanswered(event, cached.unanswered)
            content = event_to_content(event, agent_name, branch)
            if content is not None:
                previous = contents[-1] if contents else None
                if not cached.unpaired and not is_paired_after(previous, content):
                    cached.unpaired = True
                contents.append(content)
                cached.sent.append(stripped_content(content))
            if history is not None:
                mine = event.author == agent_name and _visible(event, branch)
                history.observe(event, content, mine=mine)
        cached.count = len(events)
        cached.last_id = events[-1].id if events else ""
        return cached

    def _paired(self, contents: list[Content], unanswered: dict[str, Unanswered]) -> list[Content]:
        if self.pair_responses and needs_repair(contents):
            return repair(contents, unanswered)
        return contents

    @staticmethod
    def _current_turn(events: list[Event], agent_name: str, branch: str | None) -> list[Content]:
        start = 0
        for index in range(len(events) - 1, -1, -1):
            event = events[index]
            if (
                event.author == "user"
                and _visible(event, branch)
                and not is_confirmation_event(event)
            ):
                start = index
                break
        contents: list[Content] = []
        for index in range(start, len(events)):
            content = event_to_content(events[index], agent_name, branch)
            if content is not None:
                contents.append(content)
        return contents
