"""The record's attempt count after a resume equals the requests the provider saw.

A process that goes down through ``SystemExit`` or ``KeyboardInterrupt``
closes its record ``INTERRUPTED`` with every attempt it started counted, so
the resume adds none; only a record a killed process left ``RUNNING`` may
miss the call that was in flight (see ``test_resume.py``).
"""

from __future__ import annotations

import pytest

from steadyflow import LlmAgent, Runner
from steadyflow.sessions import InvocationStatus
from steadyflow.testing import ScriptedLlm, call


def noop(order_id: str) -> dict:
    """Look an order up."""
    return {"order": order_id}


async def _crash_and_resume(runner: Runner) -> tuple[InvocationStatus, int]:
    session = await runner.create_session(user_id="u")
    with pytest.raises(SystemExit):
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="go"):
            pass
    service = runner.session_service
    (crashed,) = await service.list_invocations(app_name="app", user_id="u", session_id=session.id)
    async for _ in runner.resume_async(user_id="u", session_id=session.id):
        pass
    record = await service.get_invocation(
        app_name="app", user_id="u", session_id=session.id, invocation_id=crashed.id
    )
    assert record is not None and record.status is InvocationStatus.COMPLETED
    return crashed.status, record.llm_calls


async def test_a_crash_in_a_before_model_callback_is_not_counted_as_an_attempt(service):
    crashes = [True]

    def crash_once(callback_context, llm_request):
        if len(llm_request.contents) > 1 and crashes:  # the step after the tool's result
            crashes.pop()
            raise SystemExit("the process went down before the request left")

    model = ScriptedLlm([call("noop", {"order_id": "1"}), "done"])
    agent = LlmAgent(name="a", model=model, tools=[noop], before_model_callback=crash_once)
    runner = Runner(app_name="app", agent=agent, session_service=service)

    status, llm_calls = await _crash_and_resume(runner)

    assert status is InvocationStatus.INTERRUPTED
    assert len(model.requests) == 2
    assert llm_calls == len(model.requests)


async def test_a_model_call_cut_short_by_an_exit_is_counted_once(service):
    model = ScriptedLlm([SystemExit("the process went down mid-call"), "hello"])
    runner = Runner(app_name="app", agent=LlmAgent(name="a", model=model), session_service=service)

    status, llm_calls = await _crash_and_resume(runner)

    assert status is InvocationStatus.INTERRUPTED
    assert llm_calls == len(model.requests) == 2
