"""Callback and tool contexts: state writes become the pending event's actions."""

from steadyflow import InMemorySessionService, LlmAgent, RunConfig
from steadyflow.context import CallbackContext, InvocationContext, LlmCallBudget, ToolContext
from steadyflow.events import EventActions
from steadyflow.sessions.base import Session
from steadyflow.testing import ScriptedLlm


def invocation(state: dict[str, object] | None = None) -> InvocationContext:
    return InvocationContext(
        invocation_id="e-1",
        agent=LlmAgent(name="a", model=ScriptedLlm([])),
        session=Session(app_name="app", user_id="u", state=state or {}),
        session_service=InMemorySessionService(),
        run_config=RunConfig(),
        budget=LlmCallBudget(0),
    )


def test_reading_state_records_no_write() -> None:
    context = CallbackContext(invocation({"k": 1}))
    assert context.state["k"] == 1
    assert not context.state.has_delta()


def test_state_writes_land_in_the_pending_actions() -> None:
    context = ToolContext(invocation(), function_call_id="c-1")
    context.state["k"] = 2
    pending = context.pending_actions()
    assert pending is not None and pending.state_delta == {"k": 2}
    assert context.actions is pending


def test_actions_given_at_creation_receive_the_writes() -> None:
    actions = EventActions()
    context = CallbackContext(invocation(), actions)
    context.state["k"] = 3
    assert actions.state_delta == {"k": 3}


def test_untouched_context_builds_no_actions() -> None:
    context = CallbackContext(invocation())
    assert context.agent_name == "a"
    assert context.pending_actions() is None
