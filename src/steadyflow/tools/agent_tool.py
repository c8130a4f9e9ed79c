"""``AgentTool``: a specialist agent that a coordinator calls like a function.

A transfer hands the conversation over; an agent tool does not. The
coordinator's model calls the tool with a request, the specialist runs a
whole turn of its own on that request, and its final answer comes back as
the function response. This is ADK's ``AgentTool`` (and openai-agents'
``agent.as_tool()``); how it fits steadyflow's rules:

- **A separate session.** The specialist runs in a child context over a
  fresh in-memory session that starts with a copy of the caller's state
  (``temp:`` keys included) and holds one user message, the request. Its
  events (its model calls, its own tool calls) are not stored in the
  caller's session: the caller's transcript gains one call and one
  response, as for any tool.
- **One invocation's limits.** The child shares the caller's call budget
  (``max_llm_calls``), usage meter (``usage_limits``, ``spend_limits``) and
  plugins: every provider attempt of the specialist counts as the caller's.
  A limit reached inside the specialist fails its call, and the caller's next
  model call finds the same limit spent, so the invocation ends with
  ``LlmCallsLimitExceededError`` or ``UsageLimitExceededError``.
- **One trace.** The specialist's steps are recorded in the caller's stored
  trace, numbered in order, with a ``path`` that starts with the caller's
  (``["coordinator", "researcher"]``), so viewers show them nested; its
  ``invoke_agent`` span is a child of this call's ``execute_tool`` span.
- **State merged back, as ADK does.** Every state write of the specialist's
  events is written to the caller's state by this call (``temp:`` keys
  included, since the child is part of the same invocation).
- **Crashes.** The call is not idempotent: if the process dies while the
  specialist runs, a resume does not start the specialist again (none of its
  model calls is replayed); the caller's model is told the call's outcome is
  unknown (``steadyflow.durable.INTERRUPTED_RESPONSE``) and decides. The
  attempts the specialist made before the crash stay counted, as far as the
  invocation record had stored them.
- **Confirmations are refused.** A tool inside the specialist that asks for
  a person's confirmation cannot pause the caller's invocation (confirming
  would run the specialist again from the start). The specialist stops at
  that point and the call fails with ``NestedConfirmationError``, whose
  message the caller's model reads: give such tools to the coordinator.
- **Limits and trace under the ``Runner`` only.** A Temporal worker runs
  each tool call as an activity with no call budget, no usage limits and a
  trace of its own: a specialist run there is neither bounded nor traced.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from .._aio import aclose
from .._confirmation import confirmation_requests
from ..context import AgentNode, InvocationContext, ToolContext, tree_path
from ..errors import NestedConfirmationError, ToolArgumentsError, ToolResponseError
from ..events import Event
from ..sessions.in_memory import InMemorySessionService
from ..types import Content, FunctionDeclaration, Part
from .base_tool import BaseTool

__all__ = ["AgentTool"]

_REQUEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"request": {"type": "string", "description": "What to ask the agent, in full."}},
    "required": ["request"],
}


class AgentTool(BaseTool):
    """Call ``agent`` like a function: one request in, its final answer out.

    Args:
        agent: the specialist (an ``LlmAgent`` or a workflow agent). The tool
            takes its name and description, so write the description for the
            coordinator's model.
        skip_summarization: end the caller's turn with the specialist's answer
            as the function response, instead of giving it back to the
            caller's model to phrase.

    The model calls it with ``{"request": "..."}``. The response is
    ``{"result": "<the final answer's text>"}``, or, for an agent with an
    ``output_schema``, the validated answer as a JSON object. See the module
    docstring for budgets, trace, state, crashes and confirmations.
    """

    def __init__(self, agent: AgentNode, *, skip_summarization: bool = False) -> None:
        super().__init__(name=agent.name, description=agent.description)
        self.agent = agent
        self.skip_summarization = skip_summarization

    def declaration(self) -> FunctionDeclaration:
        """One string parameter, ``request``."""
        return FunctionDeclaration(
            name=self.name, description=self.description, parameters=_REQUEST_SCHEMA
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Run the specialist's turn on ``args["request"]`` and return its final answer."""
        request = args.get("request")
        if not isinstance(request, str) or not request.strip():
            raise ToolArgumentsError(f"{self.name}: 'request' must be a non-empty string")
        parent = tool_context.invocation_context
        first_step = len(parent.trace.trace.steps)
        try:
            answer = await self._run_child(parent, request, tool_context)
        finally:
            _nest_steps(parent, self.agent, first_step)
        if self.skip_summarization:
            tool_context.actions.skip_summarization = True
        return self._response(answer)

    async def _run_child(
        self, parent: InvocationContext, request: str, tool_context: ToolContext
    ) -> Event | None:
        """The specialist's turn in its child context; its last complete event."""
        service = InMemorySessionService()
        state = tool_context.state.to_dict()
        session = await service.create_session(
            app_name=parent.session.app_name, user_id=parent.session.user_id, state=state
        )
        session.state.update(state)  # temp: keys too (a store drops them): same invocation
        content = Content(role="user", parts=[Part(text=request)])
        user_event = Event(invocation_id=parent.invocation_id, author="user", content=content)
        await service.append_event(session, user_event)
        child = InvocationContext(
            invocation_id=parent.invocation_id,
            agent=self.agent,
            session=session,
            session_service=service,
            run_config=parent.run_config,
            user_content=content,
            budget=parent.budget,
            trace=parent.trace,  # no agent_span: the specialist's goes under this call's span
            plugins=parent.plugins,
            usage=parent.usage,
        )
        last: Event | None = None
        events = self.agent.run_async(child)
        try:
            async for event in events:
                if event.partial:
                    continue
                paused = confirmation_requests(event)
                if paused:
                    raise NestedConfirmationError(self.name, paused[0].call.name)
                delta = dict(event.actions.state_delta)  # before the store drops temp: keys
                await service.append_event(session, event)
                for key, value in delta.items():
                    tool_context.state[key] = value
                last = event
        finally:  # the specialist's spans and toolsets end with the call, whatever ended it
            await aclose(events)
        return last

    def _response(self, answer: Event | None) -> dict[str, Any]:
        """The function response for the specialist's final event."""
        text = "" if answer is None else answer.text
        schema = getattr(self.agent, "output_schema", None)  # workflow agents have none
        if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
            return {"result": text}
        try:
            validated = schema.model_validate_json(text)
        except ValidationError as error:
            message = (
                f"agent {self.name!r} answered text that does not match its output_schema "
                f"{schema.__name__} ({error.error_count()} error(s))"
            )
            raise ToolResponseError(message, {"error": message, "answer": text}) from error
        return validated.model_dump(mode="json", exclude_none=True)


def _nest_steps(parent: InvocationContext, agent: AgentNode, first_step: int) -> None:
    """Put the specialist's steps (from index ``first_step``) under the caller's path.

    A step's ``path`` starts with its agent's tree; the caller's path goes in
    front. Steps whose path starts elsewhere are left alone: another agent
    tool's running side by side, or ones a sibling call of this tool (or an
    agent tool inside the specialist) nested already.
    """
    caller = tree_path(parent.agent)
    top = agent.root_agent.name
    for step in parent.trace.trace.steps[first_step:]:
        path = step.path or [step.agent]
        if path[0] == top:
            step.path = caller + path
